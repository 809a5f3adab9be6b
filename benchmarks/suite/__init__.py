"""The sections of `python -m benchmarks suite`, one module each, and the helpers they share."""
