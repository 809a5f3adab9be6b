"""`python -m benchmarks disclosure`: the session block's size in both injection styles (issue 23), on the real
knowledge bank: `full` (the spec's block, the default) and `index` (the best few in full, one line for the rest).

Run from the project root:

    .venv/bin/python -m benchmarks disclosure [--bank DIR] [--provider local|none] [--out PATH]

The bank (../shared/fixtures/knowledge-bank/head unless --bank) is imported into a temporary store and embedded
with the local model; for each of a few session contexts the retrieval runs once (the default limit) and the
same selection is rendered in both styles by the injector's own `render_semantic_block` at the default size
budget. Sizes are characters and two token estimates, neither of them Claude's tokenizer (none is available
offline): `minilm` counts the bundled all-MiniLM-L6-v2 WordPiece tokenizer's tokens (no special tokens), `chars/4`
is the usual rule of thumb. Writes benchmarks/results/disclosure.json (or --out).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.fixtures import copy_bank
from benchmarks.common.paths import RESULTS, chosen_bank, shown
from benchmarks.common.tables import table

STYLES = ("full", "index")
# Session contexts of the kinds the bank's own features had: the feature's slug, a spec sentence, its phase.
SESSIONS = (
    ("parser-hardening", "Harden the markdown parser of the knowledge bank against malformed files: validate "
                         "every header and field, keep golden examples for each format.", "design"),
    ("hook-install-paths", "The session-start hook breaks when the checkout path holds spaces or quotes; "
                           "install the hooks with absolute paths and test them from another directory.",
     "implement"),
    ("review-loop-budget", "Cut the review iterations of the implementation phase: reviewers answer in a JSON "
                           "schema and flag only issues the change introduced.", "create-plan"),
    ("outline-tree-queries", "The outline page is slow with three thousand items: load the tree with one "
                             "recursive query instead of a query per node.", "specify"),
)


def minilm_counter():
    """Tokens of a text by the bundled MiniLM tokenizer, without special tokens, truncation or padding."""
    from tokenizers import Tokenizer

    from memory_adapters.embedders.local_embedder import BUNDLED_TOKENIZER

    tokenizer = Tokenizer.from_file(str(BUNDLED_TOKENIZER))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


def build_store(bank: Path, workdir: Path, provider: str):
    """The bank imported (and embedded, unless `provider` is none) into a store under `workdir`; the container."""
    from memory_apps.config import MemoryConfig
    from memory_apps.upkeep.embedding_jobs import embed_everything
    from memory_apps.wiring.container import build_container

    project, store = workdir / "project", workdir / "store"
    copy_bank(bank, project)
    container = build_container(MemoryConfig(embedding_provider=provider), str(store))
    imported = container.importer().run(str(project), str(store))
    if provider != "none":
        report, problem = embed_everything(container)
        if report is None or report.remaining:
            sys.exit(f"embedding failed: {problem or report}")
    return container, imported.new


def measure(container, count_tokens, limit: int, max_chars: int) -> list[dict]:
    """Each session's block in both styles: entries in full and listed, characters, tokens."""
    from memory_apps.session.injection import render_semantic_block, shown_in_full
    from memory_core.ports.context_source import ProjectContext
    from memory_core.ranking.context_query import compose_context_query

    rows = []
    for slug, sentence, phase in SESSIONS:
        query = compose_context_query(ProjectContext(feature_slug=slug, feature_description=sentence, phase=phase))
        retrieval = container.retrieval().run(query, limit)
        row: dict = {"session": slug, "selected": len(retrieval.selected), "vector_ran": retrieval.vector.ran}
        for style in STYLES:
            result = copy.copy(retrieval)  # each style fits its own copy of the selection to the budget
            block = render_semantic_block(result, max_chars, style=style)
            full = len(shown_in_full(result, style))
            row[style] = {"in_full": full, "listed": len(result.selected) - full, "chars": len(block),
                          "tokens_minilm": count_tokens(block), "tokens_chars_div_4": round(len(block) / 4)}
        rows.append(row)
    return rows


def summarise(rows: list[dict]) -> dict:
    """Per style, the mean over sessions; and index's share of full."""
    means = {style: {key: round(sum(r[style][key] for r in rows) / len(rows), 1)
                     for key in ("in_full", "listed", "chars", "tokens_minilm", "tokens_chars_div_4")}
             for style in STYLES}
    means["index_share_of_full"] = {key: round(means["index"][key] / means["full"][key], 3)
                                    for key in ("chars", "tokens_minilm")}
    return means


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Build the store, render every session in both styles, print the table, write the JSON."""
    from memory_apps.config import MemoryConfig

    defaults = MemoryConfig()
    parser = argparse.ArgumentParser(prog=prog, description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--bank", type=Path, default=None, help="a knowledge-bank directory (default: the real bank)")
    parser.add_argument("--provider", choices=("local", "none"), default="local",
                        help="embedding provider of the store (default local; none ranks by keywords + prominence)")
    parser.add_argument("--out", type=Path, default=RESULTS / "disclosure.json", help="JSON results (default %(default)s)")
    args = parser.parse_args(argv)
    bank = chosen_bank(parser, args.bank)
    if bank is None:
        return 0
    os.environ.setdefault("IFLOW_MEMORY_BACKGROUND", "0")
    count_tokens = minilm_counter()
    with tempfile.TemporaryDirectory(prefix="iflow-bench-disclosure-") as tmp:
        container, imported = build_store(bank, Path(tmp), args.provider)
        try:
            rows = measure(container, count_tokens, defaults.injection_limit, defaults.injection_max_chars)
        finally:
            container.store().close()
    means = summarise(rows)
    print(f"# Session block size by injection style\n\n{imported} entries from {shown(bank)}, provider "
          f"{args.provider}, limit {defaults.injection_limit}, budget {defaults.injection_max_chars} chars. "
          "Tokens: `minilm` = the bundled all-MiniLM-L6-v2 WordPiece tokenizer, `chars/4` = characters / 4; "
          "neither is Claude's tokenizer.\n")
    print(table(["session", "style", "in full", "listed", "chars", "tokens (minilm)", "tokens (chars/4)"],
                [(r["session"], s, r[s]["in_full"], r[s]["listed"], r[s]["chars"], r[s]["tokens_minilm"],
                  r[s]["tokens_chars_div_4"]) for r in rows for s in STYLES], right=[2, 3, 4, 5, 6]))
    print(f"\nMean: full {means['full']['chars']:.0f} chars / {means['full']['tokens_minilm']:.0f} minilm tokens; "
          f"index {means['index']['chars']:.0f} chars / {means['index']['tokens_minilm']:.0f} minilm tokens "
          f"({means['index_share_of_full']['tokens_minilm']:.0%} of full).")
    results = {"bank": shown(bank), "entries": imported, "provider": args.provider,
               "limit": defaults.injection_limit, "max_chars": defaults.injection_max_chars,
               "tokens": {"tokens_minilm": "bundled all-MiniLM-L6-v2 WordPiece tokenizer, no special tokens",
                          "tokens_chars_div_4": "characters / 4, rounded"},
               "mean": means, "sessions": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nWrote {shown(args.out)}")
    return 0
