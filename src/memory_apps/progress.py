"""A dependency-free progress bar on stderr (only drawn on a terminal)."""

from __future__ import annotations

import sys


class ProgressBar:
    """Callable(done, total) that redraws one line; silent when stderr is not a terminal."""

    def __init__(self, label: str, enabled: bool = True, width: int = 30) -> None:
        self._label = label
        self._enabled = enabled and sys.stderr.isatty()
        self._width = width
        self._drawn = False

    def __call__(self, done: int, total: int) -> None:
        """Redraw the bar."""
        if not self._enabled or total <= 0:
            return
        filled = int(self._width * done / total)
        sys.stderr.write(f"\r{self._label} [{'#' * filled}{'.' * (self._width - filled)}] {done}/{total}")
        sys.stderr.flush()
        self._drawn = True

    def close(self) -> None:
        """End the bar's line."""
        if self._drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()
