"""Section 5: retrieval quality (recall@20) on the real knowledge bank, entries grouped by the feature numbers
their metadata lines mention."""

from __future__ import annotations

import os
import re
from pathlib import Path

from benchmarks.common.fixtures import copy_bank
from benchmarks.common.stats import median
from benchmarks.common.timer import time_ms
from benchmarks.suite.constants import KB_HEAD, LIMIT
from benchmarks.suite.quality_report import print_quality
from benchmarks.suite.report import Report

FEATURE_REF = re.compile(r"\bfeatures?\s*[#/]?\s*0*(\d{1,3})\b", re.IGNORECASE)
VARIANTS = {
    "feature-NNN: + names": lambda n, names: f"feature-{n:03d}: " + "; ".join(names),
    "names only": lambda n, names: "; ".join(names),
}


def feature_groups(entries) -> dict[int, list]:
    """Group entries by the feature numbers their metadata lines (`- ...` after the description) mention."""
    groups: dict[int, list] = {}
    for entry in entries:
        lines = entry.raw_text.splitlines()[1:]
        metadata = [ln for ln in lines if ln.startswith("- ")]
        numbers = {int(m) for ln in metadata for m in FEATURE_REF.findall(ln)}
        for number in numbers:
            groups.setdefault(number, []).append(entry)
    return groups


def section_quality(report: Report, workdir: Path) -> dict:
    """Run section 5; saved under '5_quality'."""
    report.out("\n## 5. Retrieval quality on the real knowledge bank (head)\n")
    if report.bank_missing("5_quality"):
        return {}
    from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader
    from memory_apps.config import MemoryConfig
    from memory_apps.wiring.container import build_container
    from memory_apps.upkeep.embedding_jobs import embed_everything
    from memory_core.ranking.legacy import deduplicate

    os.environ["IFLOW_MEMORY_BACKGROUND"] = "0"
    project, store_dir = workdir / "s5" / "project", workdir / "s5" / "store"
    copy_bank(KB_HEAD, project)
    entries = deduplicate(MarkdownKnowledgeBankReader(warn_unknown=False).read(
        str(project / "docs" / "knowledge-bank"), "local"))
    container = build_container(MemoryConfig(embedding_provider="local"), str(store_dir))
    imported = container.importer().run(str(project), str(store_dir))
    embed_ms, (embed_report, problem) = time_ms(lambda: embed_everything(container))
    if embed_report is None or embed_report.remaining:
        raise RuntimeError(f"embedding failed: {problem or embed_report}")
    stored_ids = {e.id for e in container.store().all_entries()}
    container.store().close()
    groups = {n: g for n, g in feature_groups(entries).items() if len(g) >= 4}
    retrievers = _retrievers(store_dir)
    query_ms: dict[str, list[float]] = {m: [] for m in retrievers}
    per_feature = [_feature_recall(number, groups[number], stored_ids, retrievers, query_ms)
                   for number in sorted(groups)]
    for retriever in retrievers.values():
        retriever._store.close()  # noqa: SLF001 - each container opened its own connection

    def mean(key: str, variant: str, method: str) -> float:
        values = [r["recall"][f"{variant}|{method}"][key] for r in per_feature
                  if r["recall"][f"{variant}|{method}"][key] is not None]
        return round(sum(values) / len(values), 3) if values else float("nan")

    rate = embed_report.embedded / (embed_ms / 1000)
    report.out(
        f"{imported.new} entries imported in-process (`build_container` + importer), {embed_report.embedded} "
        f"embedded with the local model in {embed_ms / 1000:.1f} s ({rate:.1f} docs/s in-process, model load "
        "included). Entries are grouped by the feature numbers their metadata lines mention (regex "
        f"`{FEATURE_REF.pattern}` over the `- ` lines, e.g. \"Observed in: Feature #023\", \"Source: Feature 015\", "
        f"\"Last observed: Feature #33\"); {len(groups)} features have >= 4 entries.\n")
    means = {f"{v}|{m}": {"search": mean("search", v, m), "held_out": mean("held_out", v, m),
                          "run": mean("run", v, m)} for v in VARIANTS for m in retrievers}
    print_quality(report, means, query_ms, per_feature, len(stored_ids))
    results = {"imported": imported.new, "embedded": embed_report.embedded, "embed_s": round(embed_ms / 1000, 2),
               "feature_regex": FEATURE_REF.pattern, "features": len(groups),
               "chance_recall": round(LIMIT / max(len(stored_ids), 1), 3),
               "context_recipe": '"feature-NNN: " + "; ".join(first 3 entry names)',
               "mean": means, "query_ms_median": {m: round(median(v), 2) for m, v in query_ms.items()},
               "per_feature": per_feature}
    report.save("5_quality", results)
    return results


def _retrievers(store_dir: Path) -> dict:
    """The use case wired three ways: keyword-only, vector-only and the default hybrid weights."""
    from memory_apps.config import MemoryConfig
    from memory_apps.wiring.container import build_container

    methods = {
        "keyword": MemoryConfig(embedding_provider="none", vector_weight=0.0, keyword_weight=1.0,
                                prominence_weight=0.0),
        "vector": MemoryConfig(embedding_provider="local", vector_weight=1.0, keyword_weight=0.0,
                               prominence_weight=0.0),
        "hybrid": MemoryConfig(embedding_provider="local"),
    }
    retrievers = {}
    for name, settings in methods.items():
        container = build_container(settings, str(store_dir))
        plan = container.embedding_plan(want_target=False)
        if name != "keyword" and plan.query is None:
            raise RuntimeError(f"{name}: no query embedder ({plan.problem})")
        retrievers[name] = container.retrieval()
    return retrievers


def _feature_recall(number: int, members: list, stored_ids: set, retrievers: dict, query_ms: dict) -> dict:
    """Recall of one feature's entries by every method and context variant (query times added to `query_ms`)."""
    relevant = {e.entry_id for e in members} & stored_ids
    seeds = [e.name for e in members[:3]]
    held_out = relevant - {e.entry_id for e in members[:3]}
    row = {"feature": number, "entries": len(relevant), "seed_names": seeds, "recall": {}}
    for variant, make in VARIANTS.items():
        context = make(number, seeds)
        for method, retriever in retrievers.items():
            ms, found = time_ms(lambda: retriever.search(context, LIMIT))
            if method != "keyword" and not found.vector.ran:
                raise RuntimeError(f"{method}: vector signal did not run: {found.vector.reason}")
            query_ms[method].append(ms)
            top = {r.entry.id for r in found.selected}
            injected = {r.entry.id for r in retriever.run(context, LIMIT).selected}
            row["recall"][f"{variant}|{method}"] = {
                "search": len(top & relevant) / len(relevant),
                "held_out": (len(top & held_out) / len(held_out)) if held_out else None,
                "run": len(injected & relevant) / len(relevant),
            }
    row["context"] = VARIANTS["feature-NNN: + names"](number, seeds)
    return row
