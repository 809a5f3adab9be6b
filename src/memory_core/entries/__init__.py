"""Entries: the models a write enters as, the records stored, ids, hashes, merge rules and keyword checks."""
