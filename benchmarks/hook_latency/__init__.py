"""The parts of `python -m benchmarks hooks-latency`: stores with learnings that cite files, the hook processes,
the warm process's start and end, the interleaved rounds, the crash scenario, the import probe, the report."""
