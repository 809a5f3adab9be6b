"""The session start's frame: its deadline, its progress, and the rendered memory block."""
