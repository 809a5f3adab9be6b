"""The parts of `python -m benchmarks latency`: synthetic prose and stores, the timed passes, the report."""
