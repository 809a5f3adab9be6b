"""Adapters: one module per technology per port."""
