"""The prompt hook's relevance measured through the real hook process (issue 23): `python -m benchmarks hooks`."""
