"""Where a reference points inside a file, and a hash of that region (issue 24 groundwork, not wired yet).

A learning's reference is a repository-relative path, optionally `path:LINE` (or `path:FIRST-LAST`) or
`path#symbol`. An anchor records what the file and the region held when the learning was written, so a later
check can tell `current` from `changed`. Pure functions over text: the adapters read the files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

LINE_WINDOW = 3
"""A cited line is anchored with this many lines on each side: an edit next to it changes what it means."""
_LINE = re.compile(r"^(?P<path>.+?):(?P<first>\d+)(?:-(?P<last>\d+))?$")
_SYMBOL = re.compile(r"^(?P<path>[^#]+)#(?P<symbol>[A-Za-z_$][\w$.]*)$")
_PY_DEF = r"^(?P<indent>[ \t]*)(?:async[ \t]+)?(?:def|class)[ \t]+{name}\b"
_JS_DEF = (r"^(?P<indent>[ \t]*)(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?"
           r"(?:function\*?[ \t]*{name}\b|class[ \t]+{name}\b|(?:const|let|var)[ \t]+{name}[ \t]*[=:]"
           r"|{name}[ \t]*\([^)]*\)[ \t]*\{{)")
PYTHON_SUFFIXES = (".py", ".pyi")
BRACE_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")


@dataclass(frozen=True)
class Reference:
    """A parsed reference: the file, and optionally the lines or the symbol inside it."""

    path: str
    first_line: Optional[int] = None
    last_line: Optional[int] = None
    symbol: Optional[str] = None

    @property
    def kind(self) -> str:
        """`file`, `lines` or `symbol`."""
        return "symbol" if self.symbol else "lines" if self.first_line else "file"


def parse_reference(text: str) -> Reference:
    """`src/a.py:40` → lines 40-40; `src/a.py:40-52` → lines 40-52; `src/a.py#parse_row` → a symbol; else a file."""
    text = text.strip()
    line = _LINE.match(text)
    if line and int(line["first"]) >= 1:
        first = int(line["first"])
        last = max(first, int(line["last"])) if line["last"] else first
        return Reference(line["path"], first, last)
    symbol = _SYMBOL.match(text)
    if symbol:
        return Reference(symbol["path"], symbol=symbol["symbol"])
    return Reference(text)


def git_blob_id(content: bytes) -> str:
    """The id git gives this content as a blob (`git hash-object`), without running git."""
    return _hasher("sha1")(b"blob %d\0" % len(content) + content).hexdigest()


def _hasher(name: str):
    """The builtin module's hash (`_sha1`, `_sha256`: cheap to import), else hashlib's (which loads OpenSSL, a few
    milliseconds of a session start that reads one cited file)."""
    try:
        return getattr(__import__(f"_{name}"), name)
    except (ImportError, AttributeError):  # pragma: no cover - a Python built without them
        import hashlib

        return getattr(hashlib, name)


def region_text(reference: Reference, text: str) -> Optional[str]:
    """The part of `text` the reference points at (None: the line is past the end, or no such symbol)."""
    lines = text.splitlines()
    if reference.kind == "lines":
        if reference.first_line > len(lines):
            return None
        start = max(reference.first_line - 1 - LINE_WINDOW, 0)
        return "\n".join(lines[start:min(reference.last_line + LINE_WINDOW, len(lines))])
    if reference.kind == "symbol":
        return symbol_block(reference.path, reference.symbol, lines)
    return text


def region_hash(reference: Reference, text: str) -> Optional[str]:
    """A short hash of the region, blind to trailing blanks and line endings; None when there is no region."""
    region = region_text(reference, text)
    if region is None:
        return None
    normal = "\n".join(line.rstrip() for line in region.splitlines()).strip("\n")
    return _hasher("sha256")(normal.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def symbol_block(path: str, symbol: str, lines: list[str]) -> Optional[str]:
    """The lines of a Python, JavaScript or TypeScript definition named `symbol` (`Class.method` looks for the
    method inside the class); None when the file kind is unknown or nothing defines it."""
    *outer, name = symbol.split(".")
    if outer:
        enclosing = symbol_block(path, ".".join(outer), lines)
        return None if enclosing is None else symbol_block(path, name, enclosing.splitlines())
    if path.endswith(PYTHON_SUFFIXES):
        return _python_block(re.compile(_PY_DEF.format(name=re.escape(name))), lines)
    if path.endswith(BRACE_SUFFIXES):
        return _brace_block(re.compile(_JS_DEF.format(name=re.escape(name))), lines)
    return None


def _python_block(start: re.Pattern, lines: list[str]) -> Optional[str]:
    """From the `def`/`class` line to the last line indented deeper (decorators above it included)."""
    for index, line in enumerate(lines):
        found = start.match(line)
        if not found:
            continue
        indent = len(found["indent"].expandtabs())
        first = index
        while first > 0 and lines[first - 1].strip().startswith("@"):
            first -= 1
        end = index + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        while end > index + 1 and not lines[end - 1].strip():
            end -= 1
        return "\n".join(lines[first:end])
    return None


def _brace_block(start: re.Pattern, lines: list[str]) -> Optional[str]:
    """From the definition's line to the brace that closes its first `{` (strings and comments are not parsed:
    cheap, and a miscount only makes the region longer or shorter, never wrong about the start)."""
    for index, line in enumerate(lines):
        if not start.match(line):
            continue
        depth, opened = 0, False
        for end in range(index, len(lines)):
            depth += lines[end].count("{") - lines[end].count("}")
            opened = opened or "{" in lines[end]
            if opened and depth <= 0:
                return "\n".join(lines[index:end + 1])
            if not opened and lines[end].rstrip().endswith(";"):
                return "\n".join(lines[index:end + 1])  # `const x = 1;`: a one-statement definition
        return "\n".join(lines[index:])
    return None
