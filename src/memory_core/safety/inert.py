"""Stored text made inert where it is printed (ADR 13): no control characters or terminal escapes, names
on one line, and no line that could start a heading, rule, fence, quote or HTML block of the memory block.

Every function is idempotent and leaves ordinary text (prose, `- ` bullets, inline code) unchanged."""

from __future__ import annotations

import re

from memory_core.safety.secret_patterns import LazyPattern

# Compiled on first use: only a text holding a character of _TOUCHED reaches them (most texts never do).
_ESCAPES = LazyPattern(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, screen clearing
    r"|\x9b[0-?]*[ -/]*[@-~]"  # the same as one C1 character
    # OSC (titles, hyperlinks), DCS, SOS, PM, APC: the whole string when it is terminated, else the introducer
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])(?:[^\x07\x1b\x9c\x90\x98\x9d\x9e\x9f]*(?:\x07|\x1b\\|\x9c))?"
    r"|\x1b[ -/]*[0-~]?"  # any other escape sequence
)
_LINE_BREAKS = LazyPattern("\r\n|[\r\v\f\x85\u2028\u2029]")
_CONTROLS = LazyPattern(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f"  # C0 but the newline, DEL, C1
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, overrides and isolates
    "\ud800-\udfff]"  # lone surrogates: unprintable, they would crash the write
)
# Any character one of the three patterns above or the tab rule would change (C0 but the newline, DEL, C1, bidi,
# surrogates, the other line breaks): a text without one is already clean, and most texts are.
_TOUCHED = LazyPattern("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
                      "\ud800-\udfff]")
_INVISIBLE = "\u00ad\u034f\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
_OPENERS = ("#", ">", "```", "~~~", "<")  # heading, quote (the data fence), code fence, HTML block or comment
_RULE_CHARS = "-*_="  # thematic breaks and setext underlines are lines of one of these (spaces allowed)
_LIST_MARKER = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?= )")


def strip_controls(text: str) -> str:
    """Drop terminal escapes and control characters; every line break becomes `\\n`, a tab a space."""
    if text.isascii():
        if text.replace("\n", "").isprintable():  # ASCII without C0 or DEL: nothing to change (no regex needed)
            return text
    elif _TOUCHED.search(text) is None:
        return text
    text = _LINE_BREAKS.sub("\n", _ESCAPES.sub("", text)).replace("\t", " ")
    return _CONTROLS.sub("", text)


def one_line(text: str) -> str:
    """The text on one line: controls dropped, its lines joined by single spaces."""
    clean = strip_controls(text)
    if "\n" not in clean:
        return clean
    return " ".join(part.strip() for part in clean.split("\n") if part.strip())


def _content_start(line: str) -> int:
    index = 0
    while index < len(line) and (line[index].isspace() or line[index] in _INVISIBLE):
        index += 1
    return index


def _is_rule(text: str) -> bool:
    # Every printed line comes here: most fail on their first visible character, so only a line that starts
    # like a rule is read whole.
    first = next((c for c in text if not c.isspace() and c not in _INVISIBLE), "")
    if not first or first not in _RULE_CHARS:
        return False
    return all(c == first or c.isspace() or c in _INVISIBLE for c in text)


def inert_line(line: str) -> str:
    """Backslash-escape a line (or a list item's text) that would start block structure; others unchanged."""
    start = _content_start(line)
    rest = line[start:]
    if rest.startswith(_OPENERS) or _is_rule(rest):
        return line[:start] + "\\" + rest
    marker = _LIST_MARKER.match(rest)
    if marker:  # `- # x` and `- ---` nest a heading or rule in a list item
        cut = start + marker.end()
        return line[:cut] + inert_line(line[cut:])
    return line


def inert_block_text(text: str) -> str:
    """Multi-line text for the memory block: controls dropped and every line made inert."""
    return "\n".join(inert_line(line) for line in strip_controls(text).split("\n"))
