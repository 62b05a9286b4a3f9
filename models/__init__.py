"""Model catalog: one YAML file per model (data only)."""
