"""What every write path does around its work: open the store (recovering it), snapshot it, embed after a write."""
