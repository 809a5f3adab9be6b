"""Scripts the benchmarks run as subprocesses, each by its path (`python benchmarks/procs/floor.py DB`), so the
process imports only what it measures. They import each other as siblings (the script's directory is sys.path[0])."""
