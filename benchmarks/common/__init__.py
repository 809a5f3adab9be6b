"""Helpers every benchmark section shares: paths, timing, statistics, synthetic stores and knowledge banks."""
