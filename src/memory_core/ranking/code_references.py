"""The code-reference signal: learnings that cite the files a session is changing rank higher."""

from __future__ import annotations

import posixpath
import re
from typing import Mapping, Sequence

SAME_PATH = 1.0
SAME_FILE_NAME = 0.6
SAME_DIRECTORY = 0.3


_LOCATION = re.compile(r"(?::\d+(?:-\d+)?|#[^/#]*)$")
"""A reference may name a line (`path:40`, `path:40-52`) or a symbol (`path#parse_row`) inside its file."""


def cited_path(reference: str) -> str:
    """The file a reference names, without a line or symbol after it."""
    return _LOCATION.sub("", reference.strip())


FILE_NAMED = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+|[\w-]+\.[a-z][a-z0-9]{0,4})(?![\w/])")
"""A path (`hooks/session-start.sh`) or a file name with an extension (`board.py`) as a prompt writes it."""


def files_named_in(text: str) -> list[str]:
    """The paths and file names a text mentions, each once, in order."""
    return list(dict.fromkeys(m.rstrip(".") for m in FILE_NAMED.findall(text or "")))


def clean_reference(path: str) -> str:
    """A reference or path as compared: forward slashes, no `./` in front, no trailing slash, no line/symbol."""
    path = cited_path(path).replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.rstrip("/")


def reference_match(references: Sequence[str], changed_files: Sequence[str]) -> float:
    """1.0 when a reference is a changed file (or a path suffix of one), 0.6 for the same file name elsewhere,
    0.3 for a file in the same directory, else 0."""
    best = 0.0
    files = [f for f in (clean_reference(p) for p in changed_files) if f]
    for raw in references:
        ref = clean_reference(raw)
        if not ref:
            continue
        ref_dir, ref_name = posixpath.split(ref)
        for path in files:
            # a suffix names the same file only with a directory in it: `package.json` at the root is not
            # every `…/package.json` a learning cites
            if ref == path or ("/" in ref and path.endswith("/" + ref)) or ("/" in path and ref.endswith("/" + path)):
                return SAME_PATH
            directory, name = posixpath.split(path)
            if name == ref_name:
                best = max(best, SAME_FILE_NAME)
            elif ref_dir and ref_dir == directory:
                best = max(best, SAME_DIRECTORY)
    return best


def reference_scores(cited: Mapping[str, Sequence[str]], changed_files: Sequence[str]) -> dict[str, float]:
    """{entry id: reference_match} for the entries whose references match any changed file."""
    if not changed_files:
        return {}
    scores = {}
    for entry_id, references in cited.items():
        score = reference_match(references, changed_files)
        if score > 0.0:
            scores[entry_id] = score
    return scores
