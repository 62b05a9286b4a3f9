"""GPU catalog: one YAML file per GPU, every figure with its source (data only)."""
