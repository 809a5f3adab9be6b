"""Knowledge-bank markdown: the reader, the audit trail, export, the lock, tombstones and the watermark."""
