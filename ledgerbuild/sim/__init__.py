"""Companion simulations (numpy + stdlib): sampling (lecture §7). They import nothing from the
ledger."""
