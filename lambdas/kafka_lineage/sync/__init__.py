"""schema-sync: requests, desired content, the pure plan, and the run that applies it."""
