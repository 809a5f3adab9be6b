"""`python -m benchmarks near-duplicates`: the near-duplicate threshold calibrated on the real knowledge bank."""
