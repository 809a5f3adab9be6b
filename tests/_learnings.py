"""Learnings the integration and app tests store: one entry's shape, and a few on subjects no test searches for."""

from __future__ import annotations


def learning(name: str, description: str, reasoning: str, category: str = "patterns", **extra: object) -> dict:
    """An entry as the writer's --entry-json and the MCP server's store_memory take it (`extra`: its optional
    fields, such as references or keywords)."""
    return {"name": name, "description": description, "reasoning": reasoning, "category": category, **extra}


PROFILE = learning(
    "Profile before optimising",
    "Run a sampling profiler on the slow endpoint before optimising; guessing the hotspot wasted two days.",
    "The real cost was JSON serialisation, not the SQL query we rewrote.",
    references=["src/api/orders.py", "docs/features/031-fast-orders"])

# (name, description, category): deploys, migrations, reviews, stylesheets, clocks and secrets, so that a search
# about anything else has to rank its own match above them.
UNRELATED = [
    ("No Friday deploys", "Do not deploy on Friday evening without a tested rollback plan.", "anti-patterns"),
    ("Migrations in transactions", "Run each schema migration inside a transaction so a failure leaves the "
                                   "database unchanged.", "anti-patterns"),
    ("Small pull requests", "Keep pull requests under 400 lines; reviewers miss defects in larger diffs.",
     "heuristics"),
    ("Name CSS classes by role", "Name stylesheet classes after the component's role, never its colour.",
     "heuristics"),
    ("Freeze clocks in tests", "Inject a clock and freeze it in tests that depend on the current date.",
     "patterns"),
    ("Rotate secrets", "Rotate API secrets every quarter and keep them out of the repository.", "patterns"),
]


def remember_unrelated(service) -> None:
    """Store every UNRELATED learning through a MemoryService."""
    for name, description, category in UNRELATED:
        service.remember(name, description, reasoning="Learned the hard way.", category=category)
