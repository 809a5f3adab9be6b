"""Where the benchmarks find the repository, the code they measure, the real knowledge bank, and where every
section writes its numbers by default (one folder: benchmarks/results/)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
RESULTS = ROOT / "benchmarks" / "results"
DATA = ROOT / "benchmarks" / "data"
SHARED = ROOT.parent / "shared"
BANK_HEAD = SHARED / "fixtures" / "knowledge-bank" / "head"  # the real knowledge bank, when ../shared is cloned


def shown(path: Path) -> str:
    """`path` relative to the repository when it is inside it (for help texts and the last line of a report)."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def chosen_bank(parser, given):
    """The bank a `--bank` option names, or the real one; None (after saying so) when the real one is absent."""
    if given is None and not BANK_HEAD.is_dir():
        print(f"Skipped: {BANK_HEAD} not present (clone with ../shared beside the project).")
        return None
    bank = given or BANK_HEAD
    if not bank.is_dir():
        parser.error(f"--bank {bank}: not a directory")
    return bank
