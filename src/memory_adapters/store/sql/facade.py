"""`answered_by`: how a store facade names the part that answers each of its public methods."""

from __future__ import annotations

import functools
from typing import Any, Callable, Union


def answered_by(part: str, method: Union[Callable[..., Any], property]) -> Any:
    """The store's method (or property) of the same name as `method`, answered by the part the store holds in its
    attribute `part`: `get = answered_by("_reads", SqlEntryReads.get)`. It carries the part's docstring and
    signature, and is a plain function of the store's class (so it can be wrapped or patched like any other)."""
    if isinstance(method, property):
        name = method.fget.__name__
        return property(lambda store: getattr(getattr(store, part), name), doc=method.__doc__)
    name = method.__name__

    @functools.wraps(method)
    def answer(store: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(getattr(store, part), name)(*args, **kwargs)

    return answer
