"""The composition root: what is built from what, for every app."""
