"""Realistic knowledge-bank entries for keyword tests, with the answer a good LLM gives for each, and AC5."""

from __future__ import annotations

from dataclasses import dataclass

from memory_core.policies.keyword_tiers import grounded
from memory_core.entries.keywords import GENERIC_WORDS, valid_keyword


@dataclass(frozen=True)
class Case:
    """One entry and the keyword answer an LLM tier returns for it (before core validation)."""

    name: str
    description: str
    reasoning: str
    category: str
    llm_answer: tuple[str, ...]

    @property
    def fields(self) -> tuple[str, str, str, str]:
        """The four arguments every KeywordGenerator.generate takes."""
        return self.name, self.description, self.reasoning, self.category


CASES = [
    Case("Parser reports line and column on malformed input",
         "The markdown parser raises ParseFailure with the line and column of the first malformed heading "
         "instead of skipping it, so a broken knowledge-bank file is visible at once.",
         "Silently skipped headings hid half of an imported knowledge bank; explicit positions made the broken "
         "entries trivial to find.", "patterns",
         ("parser", "parse-failure", "line-column", "malformed-heading", "Markdown", "error")),
    Case("Blue-green deploys need a health-check gate",
         "During a blue-green deploy, switch traffic to the green stack only after its /healthz health check "
         "has answered 200 for five consecutive probes; otherwise roll back automatically.",
         "A deploy that flipped traffic on the first green probe served 502 responses for two minutes while "
         "the cache warmed.", "heuristics",
         ("blue-green", "deployment", "health check", "rollback", "traffic-switch", "healthz")),
    Case("SQLite busy_timeout for concurrent writers",
         "Set PRAGMA busy_timeout=5000 on every connection so a second writer waits for the WAL lock instead "
         "of failing with 'database is locked'.",
         "The injector and the writer run as separate processes and collided during retrospectives.",
         "patterns", ("sqlite", "busy-timeout", "wal", "database-locked", "pragma", "concurrent-writers")),
    Case("Review diffs for missing migrations",
         "Before approving a pull request that alters a model class, check that a schema migration is included "
         "and that it runs cleanly against a copy of production.",
         "Two releases shipped model changes without migrations and crashed at startup.",
         "heuristics", ("code-review", "pull-request", "schema-migration", "startup-crash", "code")),
    Case("Fake transports instead of patched SDK methods",
         "Contract tests drive each SDK through httpx.MockTransport, so the request the real API would receive "
         "is asserted and no socket is ever opened.",
         "Patching SDK methods hid a wrong task type that a fake transport caught on its first run.",
         "patterns", ("mock-transport", "httpx", "contract-tests", "sdk", "task-type")),
    Case("Cache embeddings by content hash",
         "Store each vector next to the SHA-256 of the embedded text and skip the provider call when the hash "
         "is unchanged, which keeps re-imports of an unchanged knowledge bank free.",
         "Re-importing 268 entries re-embedded all of them and used up the Gemini free quota in one run.",
         "patterns", ("embedding-cache", "content-hash", "sha-256", "re-import", "gemini-quota")),
]

# An answer a model plausibly gives from the title alone: grounded in the title, in neither the
# description nor the reasoning, which is what spec 001 AC5 counts.
TITLE_ONLY = Case(
    "Prefer ripgrep over grep for repository searches",
    "Use rg with --type py to limit matches to Python sources; it honours .gitignore and is much faster on "
    "large trees.",
    "Scans through vendored directories took minutes and matched generated files.",
    "tools", ("ripgrep", "grep", "repository-searches"))


def ac5_violations(keywords: list[str], description: str, reasoning: str) -> list[str]:
    """What is wrong with these keywords under spec 001 AC5 ([] when they satisfy it).

    AC5: 3-10 labels; at least 3 appear in the description or reasoning or are morphological variants of
    words there; none from the generic stopword list.
    """
    problems = []
    if not 3 <= len(keywords) <= 10:
        problems.append(f"{len(keywords)} keywords, not 3-10: {keywords}")
    text = f"{description}\n{reasoning}"
    if sum(grounded(k, text) for k in keywords) < 3:
        problems.append(f"fewer than 3 grounded in description/reasoning: {keywords}")
    problems += [f"generic word {k!r}" for k in keywords if k in GENERIC_WORDS]
    problems += [f"invalid label {k!r}" for k in keywords if not valid_keyword(k)]
    return problems
