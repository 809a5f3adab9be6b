"""Hand-written markdown that the reader skips or defaults is named, file and line (issue 21, doorway 11): a
`### Pattern:` inside fenced code is an example (never an entry, its bullets no fields), `## Pattern:` and
`###Pattern:` are not entry headings, and an unreadable observation count or confidence is said to be defaulted.
`import` runs in-process, as a user runs it."""

from __future__ import annotations

import json

from tests._helpers import run_in_process, write_settings

PATTERNS = """# Patterns

How to write one:

```markdown
### Pattern: Example heading
Describe the pattern.
- Observation count: 9
```

### Pattern: Real pattern
Keep fixtures small.
- Confidence: high

```
### Pattern: Another example
- Observation count: 7
```

## Pattern: Two hashes
Dropped before this change without a word.

###Pattern: No space
Also dropped without a word.

### Pattern: Counted in words
Count observations in digits.
- Observation count: many
- Confidence: sure
"""


def test_import_skips_fenced_examples_and_names_every_skipped_or_defaulted_line(tmp_path, isolated_home):
    project = tmp_path / "app"
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text(PATTERNS, encoding="utf-8")
    write_settings(project, embedding_provider="none")
    store = tmp_path / "G"
    args = ["--project-root", project, "--global-store", store]

    result = run_in_process("memory_apps.cli", ["import", *args], isolated_home)

    assert result.returncode == 0, result.stderr
    listed = run_in_process("memory_apps.cli", ["list", "--json", *args], isolated_home)
    entries = {e["name"]: e for e in json.loads(listed.stdout)}
    assert sorted(entries) == ["Counted in words", "Real pattern"]
    real = entries["Real pattern"]
    assert real["description"] == "Keep fixtures small."
    assert real["observation_count"] == 1, "the fenced example's count is not the entry's"
    assert real["confidence"] == "high"
    path = bank / "patterns.md"
    assert f"{path}:6: skipped `### Pattern: Example heading`: a heading in fenced code" in result.stderr
    assert f"{path}:16: skipped `### Pattern: Another example`" in result.stderr
    assert f"{path}:20: skipped `## Pattern: Two hashes`: an entry heading starts with `### `" in result.stderr
    assert f"{path}:23: skipped `###Pattern: No space`" in result.stderr
    assert f"{path}:28: Observation count `many` is not a number: counted as 1" in result.stderr
    assert f"{path}:29: Confidence `sure` is not high, medium or low: medium used" in result.stderr


def test_a_clean_bank_imports_without_a_warning(tmp_path, isolated_home):
    project = tmp_path / "app"
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text("# Patterns\n\n### Pattern: Real pattern\nKeep fixtures small.\n"
                                      "- Observation count: 3\n- Confidence: low\n- Last observed: Feature #022\n",
                                      encoding="utf-8")
    write_settings(project, embedding_provider="none")

    result = run_in_process("memory_apps.cli", ["import", "--project-root", project, "--global-store",
                                                tmp_path / "G"], isolated_home)

    assert result.returncode == 0 and "patterns.md" not in result.stderr, result.stderr
