"""Scenario tables: workloads, precisions, time models (data only)."""
