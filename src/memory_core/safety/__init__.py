"""Safety: secret redaction and stored text made inert where it is printed."""
