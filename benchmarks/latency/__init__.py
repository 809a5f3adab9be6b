"""The parts of benchmarks/search_latency.py: synthetic prose and stores, the timed passes, the report."""
