"""A stored row is checked for secrets in one scan of its fields joined (issue 21, item 7: a session start reads
its rows through this check): the verdict is exactly the field-by-field one, for secrets of every known shape,
fields that end where a secret's context would continue, and prose."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_adapters.store.sql.rows import _holds_secret
from memory_core.safety.redaction import contains_secret
from tests._secret_samples import SAMPLES

SECRETS = [text for table in SAMPLES.values() for text, _ in table.values()]
# Pieces whose meaning depends on what follows or precedes them: a field may end (or begin) right there.
EDGES = ["host:8080", "postgres://user:", "pw@db.example.com/app", "password:", "hunter2", "Bearer",
         "abcdefghijklmnopqrstuvwxyz012345", "--token", "machine build.example.com login ci password", "s3cr3t!",
         "ENV API_TOKEN", "<apiKey>", "x9y8z7w6</apiKey>", "mysql -u root -p", "token=", "AKIA", "IOSFODNN7EXAMPLE",
         "api_key = ", "'abc def'", "- Observed in: Feature #012", "Run the unit tests before every commit.",
         "key-value store", "curl -u admin:", "| None", "", " ", "sk-", "proj-0123456789abcdefghij"]
FIELD = st.one_of(st.sampled_from(SECRETS), st.lists(st.sampled_from(EDGES), min_size=1, max_size=3).map(" ".join),
                  st.lists(st.sampled_from(EDGES), min_size=1, max_size=3).map("".join), st.text(max_size=40))


def _row(fields: list[str]) -> dict:
    name, description, reasoning, project, *rest = fields + [""] * max(0, 4 - len(fields))
    half = len(rest) // 2
    return {"name": name, "description": description, "reasoning": reasoning, "source_project": project or None,
            "references": rest[:half], "keywords": rest[half:]}


@settings(max_examples=400, deadline=None)
@given(st.lists(FIELD, min_size=1, max_size=8))
def test_one_scan_of_a_row_gives_the_field_by_field_verdict(fields):
    row = _row(fields)
    texts = [row["name"], row["description"], row["reasoning"], row["source_project"] or "", *row["references"],
             *row["keywords"]]
    assert _holds_secret(row) == any(contains_secret(t, scanners=False) for t in texts), texts


def test_a_secret_in_any_field_makes_the_row_untrusted_and_prose_does_not():
    for secret in SECRETS:
        for field in range(6):
            fields = ["Deploy on Friday", "Run the smoke tests first.", "- Observed in: Feature #001", "app",
                      "docs/deploy.md", "deploy"]
            fields[field] = secret
            assert _holds_secret(_row(fields)) == contains_secret(secret, scanners=False), (field, secret)
    assert not _holds_secret(_row(["Deploy on Friday", "Run the smoke tests first.", "", "app", "a.py", "deploy"]))
