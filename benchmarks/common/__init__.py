"""Helpers shared by the benchmark entry points (run.py, search_latency.py): timing, statistics, synthetic stores."""
