"""What a project is: its identity, its layout, its git context and whose its bank is."""
