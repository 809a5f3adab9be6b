"""`python -m benchmarks disclosure`: the session block in the `full` and `index` injection styles."""
