"""`answered_by`: how a store facade names the part that answers each of its public methods."""

from __future__ import annotations

from typing import Any, Callable


class answered_by:  # lower case, as `property` is: `get = answered_by("_reads", SqlEntryReads.get)` in a class body
    """A store's method (or property) answered by one of its parts: the store's attribute `part` holds the part,
    `method` is the part's own (its name and docstring are the store's)."""

    def __init__(self, part: str, method: Callable[..., Any] | property) -> None:
        self._part = part
        self._method = method
        function = method.fget if isinstance(method, property) else method
        self._name = function.__name__
        self.__doc__ = function.__doc__

    def __get__(self, store: Any, owner: type | None = None) -> Any:
        if store is None:
            return self._method  # on the class: the part's own function, for help() and inspect
        return getattr(getattr(store, self._part), self._name)
