"""Work shared between processes: file leases, the detached background run, and the per-session ledger."""
