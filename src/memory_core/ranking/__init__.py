"""Ranking: the spec's scoring formula, relevance fusion, the category-balanced selection and the legacy injector."""
