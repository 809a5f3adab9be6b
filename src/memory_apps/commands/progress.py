"""A progress bar on stderr, drawn by rich only on a terminal (rich is imported at the first redraw)."""

from __future__ import annotations

import sys
from typing import Any

from memory_apps.formatting import is_terminal


class ProgressBar:
    """Callable(done, total) that redraws one line; silent when stderr is not a terminal."""

    def __init__(self, label: str, enabled: bool = True) -> None:
        self._label = label
        self._enabled = enabled and is_terminal(sys.stderr)
        self._progress: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        """Redraw the bar."""
        if not self._enabled or total <= 0:
            return
        if self._progress is None:
            self._start(total)
        self._progress.update(self._task, completed=done, total=total)
        self._progress.refresh()

    def close(self) -> None:
        """End the bar's line (the last state stays on screen)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def _start(self, total: int) -> None:
        import atexit

        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(file=sys.stderr, highlight=False, markup=False, emoji=False)
        # No refresh thread and no redirected stdout/stderr: nothing outlives a bar that is never closed.
        self._progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                                  MofNCompleteColumn(), TimeRemainingColumn(), console=console,
                                  auto_refresh=False, redirect_stdout=False, redirect_stderr=False)
        self._task = self._progress.add_task(self._label, total=total)
        self._progress.start()
        atexit.register(self.close)  # an exception or Ctrl-C before close() still gives the cursor back
