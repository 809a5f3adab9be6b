"""The literal text a regular expression cannot match without: a substring test that rules a pattern out
before it is compiled (compiling the vendor-token alternation costs about 10 ms, once per process, and every
session start redacts its texts)."""

from __future__ import annotations

import re
from typing import Iterable, Optional

_SPECIAL = set(".^$*+?{}[]\\|()")
_FLAGS = re.compile(r"\(\?[aiLmsux-]")  # inline flags (case-insensitive, verbose, ...): not read here
_MAX_CHOICES = 64


def any_required(sources: Iterable[str]) -> tuple[str, ...]:
    """Strings one of which occurs in every match of any of `sources` (an alternation of them); () when
    some source has no such string this reader can prove (then nothing may be ruled out)."""
    found: set[str] = set()
    for source in sources:
        literals = required(source)
        if not literals:
            return ()
        found.update(literals)
    return tuple(sorted(found))


def required(source: str) -> tuple[str, ...]:
    """Strings one of which occurs in every match of `source`, case-sensitively; () when none is proven."""
    if _FLAGS.search(source):
        return ()
    atoms = _atoms(source)
    if atoms is None:
        return ()
    best: tuple[str, ...] = ()
    run: Optional[set[str]] = None
    for atom in [*atoms, None]:
        if atom is not None:
            run = set(atom) if run is None else {a + b for a in run for b in atom}
            if len(run) <= _MAX_CHOICES:
                continue
            run = None  # too many spellings to test cheaply: this run proves nothing
        if run and min(map(len, run)) > min(map(len, best), default=0):
            best = tuple(sorted(run))
        run = None
    return best


def _atoms(source: str) -> Optional[list[Optional[set[str]]]]:
    """The top-level atoms in order: a set of literal spellings, or None for anything else (a class, an escape
    class, a group that is not a plain choice of literals, an atom with a quantifier). None for the whole when
    the source has a top-level alternation."""
    atoms: list[Optional[set[str]]] = []
    i = 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            escaped = source[i + 1:i + 2]
            if escaped.isalnum() and escaped not in "dDwWsSbBAZ":
                return None  # \x2d, \u005f, \N{...}, \1: what follows is no literal text of the match
            atoms.append({escaped} if escaped and not escaped.isalnum() else None)
            i += 2
        elif char == "[":
            i = _class_end(source, i) + 1
            atoms.append(None)
        elif char == "(":
            end = _group_end(source, i)
            inner = source[i + 1:end]
            plain = inner.startswith("?:") and not (_SPECIAL - {"|"}) & set(inner[2:])
            atoms.append(set(inner[2:].split("|")) if plain and "" not in inner[2:].split("|") else None)
            i = end + 1
        elif char == "|":
            return None
        elif char in "*+?{":
            if atoms:
                atoms[-1] = None  # repeated or optional: not exactly once
            i = source.index("}", i) + 1 if char == "{" else i + 1
        else:
            atoms.append(None if char in _SPECIAL else {char})
            i += 1
    return atoms


def _class_end(source: str, start: int) -> int:
    i = start + 1
    if source[i:i + 1] == "^":
        i += 1
    if source[i:i + 1] == "]":
        i += 1
    while source[i] != "]":
        i += 2 if source[i] == "\\" else 1
    return i


def _group_end(source: str, start: int) -> int:
    depth, i = 0, start
    while True:
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i = _class_end(source, i) + 1
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return i
        i += 1
