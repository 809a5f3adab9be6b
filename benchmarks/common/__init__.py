"""Helpers every benchmark section shares: paths, subprocesses, the benchmark project, synthetic stores and prose,
knowledge banks, timing, statistics and markdown tables."""
