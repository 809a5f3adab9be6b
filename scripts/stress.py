"""The long stress run: `python scripts/stress.py --minutes 5` (the suite runs the same mix for seconds); with
`--database-url postgresql://…` the mix runs from two machines against that server database."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.integration._stress import run_stress  # noqa: E402


def main() -> int:
    """Run the mix for the given minutes in a temporary directory and print the summary as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=5.0, help="how long the mix runs (default 5)")
    parser.add_argument("--database-url", default=None,
                        help="a PostgreSQL database (postgresql://…) to run against instead of a SQLite file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="iflow-stress-") as root:
        env = dict(os.environ, HOME=str(Path(root) / "home"), IFLOW_MEMORY_BACKGROUND="0")
        summary = run_stress(Path(root), args.minutes * 60, env, database_url=args.database_url)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
