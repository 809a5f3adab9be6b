"""`python -m benchmarks semantic`: the local model against keyword + prominence on a bank built to need it."""
