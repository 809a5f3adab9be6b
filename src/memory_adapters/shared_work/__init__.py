"""Work shared between processes: file leases and the detached background run."""
