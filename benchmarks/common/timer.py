"""Wall-clock timing shared by the benchmarks, and a timer that wraps functions in place and fails loudly when
one of them no longer exists (a renamed function must not silently drop out of a table).

Imports little beyond what the interpreter loads at startup (functools, threading), so a
subprocess that times the injector's phases can import it without changing what it measures.
"""

from __future__ import annotations

import functools
import gc
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

_ABSENT = object()


class TimerTargetMissing(AttributeError):
    """A function the timer was told to wrap does not exist: it was renamed or removed."""


def time_ms(fn: Callable[[], object]) -> tuple[float, object]:
    """Milliseconds one call of `fn` took, and what it returned."""
    start = time.perf_counter()
    value = fn()
    return (time.perf_counter() - start) * 1000, value


def repeat_ms(fn: Callable[[], object], repeat: int, warmup: int = 1) -> list[float]:
    """`repeat` timed calls of `fn` (ms) after `warmup` untimed ones."""
    for _ in range(warmup):
        fn()
    gc.collect()  # start each series from the same heap; collections during the runs stay in the numbers
    return [time_ms(fn)[0] for _ in range(repeat)]


def timed_calls(call: Callable[[str], object], texts: Sequence[str]) -> list[float]:
    """One timed call (ms) of `call` per text."""
    gc.collect()
    return [time_ms(lambda: call(text))[0] for text in texts]


def resolve(target: str) -> tuple[object, str]:
    """'package.module:Class.method' or 'package.module:function' -> (owner, attribute name)."""
    module_name, _, path = target.partition(":")
    *owners, name = path.split(".")
    try:
        __import__(module_name)  # importlib would import more than the phase subprocess should pay for
        owner: object = sys.modules[module_name]
        for part in owners:
            owner = getattr(owner, part)
    except (ImportError, AttributeError) as exc:
        raise TimerTargetMissing(f"timer target {target}: {exc}") from exc
    return owner, name


def _static_lookup(owner: object, name: str) -> object:
    """The attribute as stored (a staticmethod stays a staticmethod), searching a class's bases; _ABSENT if none."""
    for scope in owner.__mro__ if isinstance(owner, type) else (owner,):
        if name in vars(scope):
            return vars(scope)[name]
    return _ABSENT


class PhaseTimer:
    """Wraps functions in place and adds up, per label, the time spent inside them: `inclusive` (the whole call)
    and `own` (minus the time of nested timed calls on the same thread). `restore` undoes every wrap.

    A target that does not exist raises TimerTargetMissing, unless the timer was built with strict=False (for
    timing an older checkout): then it is listed in `missing`, which the caller must report."""

    def __init__(self, strict: bool = True, listed_in: str = "the list of timed functions") -> None:
        self.listed_in = listed_in
        self.inclusive: dict[str, float] = defaultdict(float)
        self.own: dict[str, float] = defaultdict(float)
        self.missing: list[str] = []
        self._strict = strict
        self._frames = threading.local()
        self._undo: list[tuple[object, str, object]] = []

    def wrap_all(self, targets: Iterable[tuple[str, str]]) -> "PhaseTimer":
        """Wrap every ('module:Owner.name', label) pair."""
        for target, label in targets:
            try:
                owner, name = resolve(target)
            except TimerTargetMissing as exc:
                if self._strict:
                    raise TimerTargetMissing(f"{exc}; update {self.listed_in}") from exc
                self.missing.append(target)
                continue
            self.wrap(owner, name, label)
        return self

    def wrap(self, owner: object, name: str, label: str) -> None:
        """Time every call of `owner.name` under `label` from now on."""
        stored = _static_lookup(owner, name)
        if stored is _ABSENT:
            where = f"{getattr(owner, '__name__', owner)}.{name}"
            if self._strict:
                raise TimerTargetMissing(f"phase timer: {where} does not exist (renamed or removed?); "
                                         f"update {self.listed_in}")
            self.missing.append(where)
            return
        if isinstance(stored, (staticmethod, classmethod)):
            replacement: object = type(stored)(self._timed(stored.__func__, label))
        else:
            replacement = self._timed(getattr(owner, name), label)
        self._undo.append((owner, name, vars(owner).get(name, _ABSENT)))
        setattr(owner, name, replacement)

    def clear(self) -> None:
        """Forget the times added up so far (the wraps stay)."""
        self.inclusive.clear()
        self.own.clear()

    def restore(self) -> None:
        """Put every wrapped function back as it was."""
        for owner, name, original in reversed(self._undo):
            if original is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        self._undo.clear()

    def _timed(self, original: Callable, label: str) -> Callable:
        frames, inclusive, own = self._frames, self.inclusive, self.own

        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            stack = frames.__dict__.setdefault("stack", [])
            stack.append(0.0)
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = (time.perf_counter() - start) * 1000
                children = stack.pop()
                inclusive[label] += elapsed
                own[label] += elapsed - children
                if stack:
                    stack[-1] += elapsed

        return wrapper
