"""Pure view-model builders: plain data for the templates, no Starlette."""
