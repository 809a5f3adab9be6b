"""Claude Code's settings files: installing the hook and the MCP server."""
