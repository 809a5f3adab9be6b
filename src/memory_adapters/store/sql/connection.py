"""SqlConnection: what every part of an SQL store asks of the connection it is given."""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence, TypeVar

T = TypeVar("T")


class SqlConnection(Protocol):
    """One store's connection: reads, single writes and short transactions, errors already in the core's terms."""

    path: str  # what messages name: the file, or the server's URL with its password masked

    def read(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """The rows of one query."""
        ...

    def write(self, sql: str, params: Sequence = ()) -> int:
        """One statement in a transaction of its own; returns the number of rows it touched."""
        ...

    def transaction(self, work: Callable[[Any], T]) -> T:
        """Run `work(conn)` in one short transaction (retried as the database requires) and return its result;
        `conn.execute(sql, params)` runs a statement in it."""
        ...
