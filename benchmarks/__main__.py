"""`python -m benchmarks SECTION [options]`: Every benchmark of iflow-memory behind one command.

Run from the repository root. Each section prints markdown tables on stdout and (unless it only prints) writes
its numbers to benchmarks/results/SECTION.json, or to --out. `python -m benchmarks SECTION --help` gives the
section's own options. The code measured is this checkout's src/.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import textwrap
from typing import Optional, Sequence

from benchmarks.common.paths import ROOT, SRC

PROG = "python -m benchmarks"

# section -> (its module, whose main(argv, prog) runs it; what it measures)
SECTIONS = {
    "suite": ("benchmarks.suite.main",
              "whole session-start processes against floors measured in the same run, in-process ranking, "
              "import and embed throughput, the markdown pipeline, retrieval quality, session starts under "
              "their deadline (sections 1-7; --smoke for a check that each runs)"),
    "latency": ("benchmarks.latency.main",
                "warm MemoryService.search and the MCP search_memory tool at 1k and 10k entries, against a floor "
                "(embedding + one matrix product)"),
    "hooks-latency": ("benchmarks.hook_latency.main",
                      "the prompt and file hooks as whole processes at 1k and 10k entries, warm and cold, against the "
                      "floor of the same run; a killed warm process replaced; what a warm-answered hook imports"),
    "semantic": ("benchmarks.semantic.main",
                 "relevant entries the local model finds versus keyword + prominence, on a 60-entry bank whose "
                 "relevant entries share no word with their session context (prints only)"),
    "relevance": ("benchmarks.relevance.main",
                  "recall@20, nDCG@10 and MRR of every ranking method on seven sets of different character, "
                  "the scores of prompts the real bank answers against those it does not, and the prompt hook's "
                  "relevance refitted on every judged prompt file pooled (nested cross-validation)"),
    "search-floor": ("benchmarks.relevance.search_floor",
                     "recall@10 of `search` on every relevance set without and with a relevance floor, and the "
                     "share of nonsense queries that get \"no good match\"; chooses search_floor per path"),
    "tuning": ("benchmarks.relevance.tuning",
               "leave-one-set-out cross-validation of the relevance ranking's weights (ADR 18)"),
    "hooks": ("benchmarks.hooks.main",
              "the prompt hook's relevance through the real hook process, on every judged prompt file its floor "
              "was fitted on, both paths (model; keywords only), against the calibration's own computation"),
    "keyword-labels": ("benchmarks.relevance.keyword_labels",
                       "the local keyword tier's labels on the real knowledge bank (spec 001 AC5)"),
    "disclosure": ("benchmarks.disclosure.main",
                   "the session block's size in characters and tokens, full style against index style (the best "
                   "few in full, one line for the rest), on the real knowledge bank"),
    "near-duplicates": ("benchmarks.near_duplicates.main",
                        "the near-duplicate threshold calibrated on the real knowledge bank (both snapshots, local "
                        "model): the closest distinct pair, hand-written paraphrases caught, same-topic learnings "
                        "not flagged, with vectors and keyword-only"),
    "postgres": ("benchmarks.postgres.main",
                 "PostgreSQL at 10k, 100k and 1M entries next to SQLite: session starts, warm searches, "
                 "concurrent writers, EXPLAIN ANALYZE of a session start's statements"),
    "anchors": ("benchmarks.anchors.main",
                "the check of learnings against the code they cite in a session start at 10k entries citing 1,000 "
                "files of a git repository, cold (no anchor cache) and warm, against the same store without anchors"),
    "viewer": ("benchmarks.viewer.main",
               "each page of the local web viewer (`iflow-memory ui`) at 10k entries on SQLite and PostgreSQL over "
               "HTTP, against 200 ms a page and the floors of the same run (a bare Starlette page, SELECT 1)"),
    "postgres-build": ("benchmarks.postgres.build",
                       "build (or find) the PostgreSQL benchmark databases only, e.g. the 1M one (prints only)"),
}


def sections_help() -> str:
    """The sections, one paragraph each, for --help."""
    width = max(map(len, SECTIONS))
    lines = ["sections:"]
    for name, (_, what) in SECTIONS.items():
        lines.append(textwrap.fill(what, 112, initial_indent=f"  {name.ljust(width)}  ",
                                   subsequent_indent=" " * (width + 4)))
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the section named first with the remaining arguments."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0].split(": ", 1)[1],
                                     epilog=sections_help() + "\n\n" + __doc__.split("\n\n", 1)[1].strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("section", metavar="SECTION", choices=SECTIONS, help="one of the sections below")
    parser.add_argument("options", metavar="...", nargs="?", help="the section's own options")
    section = parser.parse_args(argv[:1]).section
    for path in (str(SRC), str(ROOT)):  # the checkout's code first, whatever is installed
        if path not in sys.path:
            sys.path.insert(0, path)
    module = importlib.import_module(SECTIONS[section][0])
    return module.main(argv[1:], prog=f"{PROG} {section}")


if __name__ == "__main__":
    sys.exit(main())
