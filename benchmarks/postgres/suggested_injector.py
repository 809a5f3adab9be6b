"""`python -m memory_apps.injector` with benchmarks/postgres/suggested.py applied (a prototype, measured only)."""

import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the benchmarks package

from benchmarks.postgres.suggested import apply  # noqa: E402

if __name__ == "__main__":
    gc.disable()  # as the injector does
    apply()
    from memory_apps.injector import main

    sys.exit(main(fast_exit=True))
