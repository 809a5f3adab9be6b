"""The sections of benchmarks/run.py, one module each, and the helpers they share."""
