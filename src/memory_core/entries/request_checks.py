"""The rules every door applies to a request (MCP tool, CLI, library), written once.

Each check returns the value to use or raises `InvalidEntry(field, message)`: the MCP server reports it as a tool
error, the CLI as `iflow-memory: invalid <field>: <message>` with exit status 1, the library raises it as is.
The messages are short and plain, never a pydantic dump with URLs and the caller's input.
"""

from __future__ import annotations

from typing import Optional

from pydantic import ValidationError

from memory_core.errors import InvalidEntry
from memory_core.entries.records import CATEGORIES
from memory_core.safety.redaction import redact_secrets

MAX_LIMIT = 100
"""The most results one search (or one injected block asked for by a library caller) may return."""

MAX_IDS = 20
"""The most entries one `get_memory` call reads: a default session block (20 entries) names fewer."""

EMPTY = "must not be empty"


def check_limit(limit: object, maximum: int = MAX_LIMIT) -> int:
    """`limit` when it is a whole number from 1 to `maximum`; InvalidEntry("limit", ...) otherwise."""
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InvalidEntry("limit", "must be a whole number")
    if limit < 1:
        raise InvalidEntry("limit", "must be at least 1")
    if limit > maximum:
        raise InvalidEntry("limit", f"must be at most {maximum}")
    return limit


def check_query(text: object) -> str:
    """The query without surrounding whitespace; InvalidEntry("query", ...) when it is not text or is blank."""
    if not isinstance(text, str):
        raise InvalidEntry("query", "must be text")
    if not text.strip():
        raise InvalidEntry("query", EMPTY)
    return text.strip()


def check_ids(ids: object, maximum: int = MAX_IDS) -> list[str]:
    """The ids (stripped, repeats dropped, in order) when `ids` is a list of 1 to `maximum` texts;
    InvalidEntry("ids", ...) otherwise. Whether each is a well-formed id is the lookup's to say, per id."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, (list, tuple)):
        raise InvalidEntry("ids", "must be a list of entry ids")
    if not ids:
        raise InvalidEntry("ids", EMPTY)
    if len(ids) > maximum:
        raise InvalidEntry("ids", f"must have at most {maximum} items")
    if not all(isinstance(entry_id, str) for entry_id in ids):
        raise InvalidEntry("ids", "must be text")
    return list(dict.fromkeys(entry_id.strip() for entry_id in ids))


def check_category(category: Optional[str]) -> Optional[str]:
    """The category filter (None means every category); InvalidEntry("category", ...) when it is not one."""
    if category is not None and category not in CATEGORIES:
        raise InvalidEntry("category", f"must be one of {', '.join(CATEGORIES)}")
    return category


def plain_errors(exc: ValidationError, default_field: str = "entry") -> list[InvalidEntry]:
    """Every problem of a pydantic ValidationError as InvalidEntry(field, short message): no URL, no input echoed."""
    return [_plain(error, default_field) for error in exc.errors()]


def plain_error(exc: ValidationError, default_field: str = "entry") -> InvalidEntry:
    """The first problem of a pydantic ValidationError, as `plain_errors` words it."""
    return plain_errors(exc, default_field)[0]


def _plain(error: dict, default_field: str) -> InvalidEntry:
    # A field name can be a key the caller made up (an unknown field), so it is shown redacted.
    field = redact_secrets(".".join(str(part) for part in error.get("loc", ())) or default_field)
    return InvalidEntry(field, _message(error))


def _message(error: dict) -> str:
    kind, ctx = error.get("type", ""), error.get("ctx") or {}
    if kind == "missing":
        return "required but missing"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind in ("literal_error", "enum"):
        # pydantic words it "'a', 'b' or 'c'": shown like check_category's list.
        return "must be one of " + str(ctx.get("expected", "")).replace("'", "").replace(" or ", ", ")
    if kind == "string_too_short":
        return EMPTY if ctx.get("min_length") == 1 else f"must be at least {ctx.get('min_length')} characters"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters"
    if kind == "too_long":
        return f"must have at most {ctx.get('max_length')} items"
    bounds = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
              "greater_than": ("more than", "gt"), "less_than": ("less than", "lt")}
    if kind in bounds:
        words, key = bounds[kind]
        return f"must be {words} {ctx.get(key)}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return "must be a whole number"
    if kind in ("string_type", "string_unicode"):
        return "must be text"
    if kind == "list_type":
        return "must be a list"
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"])  # a validator's own words, without pydantic's "Value error, " prefix
    return str(error.get("msg", "is not valid"))
