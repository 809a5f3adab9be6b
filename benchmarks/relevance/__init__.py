"""The relevance suite (`python -m benchmarks relevance`), the cross-validation of its weights (`tuning`) and the
local keyword labels on the real bank (`keyword-labels`)."""
