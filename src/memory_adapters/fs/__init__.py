"""Files read and written safely: no symlinks followed, private modes, atomic temp files."""
