"""Writers: the workbook, derivations, plots, terminal tables and JSON."""
