"""The adapters' safe file helpers the apps read and write their own files with (the config file, Claude Code's
settings, the tracking file): regular files only, within a size limit, replaced atomically."""

from memory_adapters.fs.regular_files import BANK_FILE_LIMIT, SMALL_FILE_LIMIT, read_regular_text
from memory_adapters.fs.safe_files import PRIVATE, atomic_write_text, read_text_no_follow

__all__ = ["BANK_FILE_LIMIT", "PRIVATE", "SMALL_FILE_LIMIT", "atomic_write_text", "read_regular_text",
           "read_text_no_follow"]
