"""The lifecycle use cases (ADR 26): retire, restore, confirm, supersede, and the review queues."""
