"""Use cases: what the apps ask the domain to do."""
