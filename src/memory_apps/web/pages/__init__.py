"""One module per page, each exporting `routes` for app.py to collect."""
