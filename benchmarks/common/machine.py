"""How busy the machine was while a benchmark ran: the load its timings competed with."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional


def busy_seconds(children: bool = False) -> Optional[tuple[float, float]]:
    """(CPU seconds every process has used since boot, CPU seconds this process used; with `children`, its
    finished children's too: processes a run starts are the run, not load it competed with), or None."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    idle = int(fields[3]) + int(fields[4])  # idle + iowait
    own = os.times()
    mine = own.user + own.system + ((own.children_user + own.children_system) if children else 0.0)
    return (sum(int(f) for f in fields[:8]) - idle) / ticks, mine


def others_cores(start: Optional[tuple[float, float]], wall_s: float, children: bool = False) -> Optional[float]:
    """How many cores other processes kept busy on average since `start` (taken with the same `children`)."""
    end = busy_seconds(children)
    if start is None or end is None or wall_s <= 0:
        return None
    return round(max(0.0, (end[0] - start[0]) - (end[1] - start[1])) / wall_s, 2)
