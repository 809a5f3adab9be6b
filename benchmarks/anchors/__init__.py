"""`python -m benchmarks anchors`: what the check of learnings against the code they cite adds to a session start."""
