"""The events the hooks are timed on: Claude Code's JSON, a new session id every call (the ledger never
short-circuits), prompts that never repeat (half of them asked about a learning the store holds, half prose
that nothing answers), and files that learnings cite or not."""

from __future__ import annotations

import itertools
import json
import uuid
from pathlib import Path

from benchmarks.common.prose import queries
from benchmarks.hook_latency.store import ANCHORS, CITING, cited_file

CONTEXTS = ("", " since yesterday", " on the staging machine", " in the nightly build", " for the second time today",
            " after the last merge", " only on macOS", " when the test suite runs in parallel")


def prompts(count: int, seed: int) -> list[str]:
    """`count` distinct prompts, answerable (an anchor's phrasing in some context) and prose in turn."""
    asked = [f"{text}{context}" for context in CONTEXTS for *_, phrasings in ANCHORS for text in phrasings]
    prose = queries(count, seed)
    mixed = [p for pair in itertools.zip_longest(asked, prose) for p in pair if p]
    if len(set(mixed)) < count:
        raise ValueError(f"at most {len(set(mixed))} distinct prompts; asked for {count}")
    return list(dict.fromkeys(mixed))[:count]


def files(count: int, size: int) -> list[str]:
    """`count` project-relative paths: a cited file, a file of the same name elsewhere, an uncited one, in turn."""
    chosen = []
    for n in range(count):
        i = (n * 7 * CITING) % max(size, CITING)
        cited = cited_file(i).split(":")[0]
        chosen.append((cited, cited.replace("src/", "lib/", 1), f"docs/notes/page_{n}.md")[n % 3])
    return chosen


def prompt_event(project: Path, text: str) -> str:
    """A UserPromptSubmit event of a new session."""
    return _event(project, "UserPromptSubmit", prompt=text)


def file_event(project: Path, relative: str, tool: str = "Edit") -> str:
    """A PreToolUse event of a new session for `tool` on the project's file (absolute, as Claude Code sends it)."""
    return _event(project, "PreToolUse", tool_name=tool, tool_input={"file_path": str(project / relative)})


def _event(project: Path, name: str, **fields: object) -> str:
    return json.dumps({"session_id": f"bench-{uuid.uuid4()}", "transcript_path": "/dev/null", "cwd": str(project),
                       "hook_event_name": name, **fields})
