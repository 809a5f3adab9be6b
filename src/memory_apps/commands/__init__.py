"""The subcommands of `iflow-memory`, and the formatting and progress they share."""
