"""The report: markdown tables on stdout (the JSON holds every number)."""

from __future__ import annotations

from benchmarks.common.tables import table


def _ms(entry, key: str = "median_ms") -> str:
    return "—" if not entry else f"{entry[key]:,.0f}" if entry[key] >= 100 else f"{entry[key]:.1f}"


def _with_p95(entry) -> str:
    return "—" if not entry else f"{_ms(entry)} ({_ms(entry, 'p95_ms')})"


def render(results: dict) -> str:
    """Every table of a run."""
    m = results["machine"]
    out = [f"# PostgreSQL benchmark\n\nMachine: {m['cores']} cores; load average at start {m['loadavg_start']}, "
           f"at end {m['loadavg_end']}. Server: {results['server'].get('server_version')} with pgvector "
           f"{results['server'].get('pgvector')} on the same machine ({results['url']}).\n"]
    sizes = results["sizes"]
    rows = [(f"{s:,}", f"{b['entries']:,}", b.get("load_s", "—"), b.get("secondary_indexes_s", "—"),
             b.get("hnsw_s", "—"), b.get("vacuum_analyze_s", "—"), b.get("total_s", "—"),
             b.get("total_mb", "—"), b.get("hnsw_mb", "—"), "reused" if b.get("reused") else "built now")
            for s, per in sizes.items() if (b := per.get("postgres", {}).get("build"))]
    out.append("## Building the PostgreSQL databases (seconds; MB)\n")
    out.append(table(["entries", "rows", "COPY load", "b-tree + GIN", "HNSW", "VACUUM ANALYZE", "total",
                      "table+indexes MB", "HNSW MB", ""], rows, right=tuple(range(1, 9))))
    out.append("\n## Session starts: `python -m memory_apps.injector` processes, wall ms median (p95)\n")
    rows = []
    for s, per in sizes.items():
        for backend, r in per.items():
            h = r.get("hook")
            if not h:
                continue
            floor = h["model_floor"]["median_ms"] + (h["server_floor"]["median_ms"] if "server_floor" in h else 0)
            rows.append((f"{s:,}", backend, _with_p95(h["cached"]), _with_p95(h["new_context"]),
                         _with_p95(h["new_context_models"]), _ms(h["model_floor"]), _ms(h.get("server_floor")),
                         f"{h['new_context']['median_ms'] / floor:.2f}×", h["new_context"]["paths"],
                         h["new_context"]["active_within_3s"]))
    out.append(table(["entries", "store", "cached context", "new context", "new context, optimised model",
                      "model floor", "server floor", "new ctx / floors", "path (new ctx)", "active ≤ 3 s"],
                     rows, right=(2, 3, 4, 5, 6, 7)))
    out.append("\n## In a warm process: `MemoryService.inject` and `MemoryService.search` / MCP, ms median (p95)\n")
    rows = []
    for s, per in sizes.items():
        for backend, r in per.items():
            i, q = r.get("in_process"), r.get("search")
            rows.append((f"{s:,}", backend, _with_p95(i and i["new_context"]), _with_p95(i and i["cached"]),
                         _with_p95(q and q["service"]), _ms(q and q["service_repeated"]), _with_p95(q and q["mcp"]),
                         _ms(q and q["floor"]), f"{q['ratio_to_floor']}×" if q else "—"))
    out.append(table(["entries", "store", "inject, new context", "inject, cached", "search", "same query again",
                      "MCP search_memory", "search floor", "search / floor"], rows, right=tuple(range(2, 9))))
    if results.get("writers"):
        out.append("\n## Concurrent writers (separate processes, `upsert`), writes/s and ms per write\n")
        rows = [(n, w["postgres"]["writes_per_s"], _ms(w["postgres"]), _ms(w["postgres"], "p95_ms"),
                 w["sqlite"]["writes_per_s"], _ms(w["sqlite"]), _ms(w["sqlite"], "p95_ms"))
                for n, w in results["writers"]["runs"].items()]
        out.append(table(["writers", "PostgreSQL writes/s", "median", "p95", "SQLite writes/s", "median", "p95"],
                         rows, right=tuple(range(0, 7))))
    for size, e in results.get("explain", {}).items():
        out.append(f"\n## One session start's statements at {int(size):,} entries (EXPLAIN ANALYZE)\n")
        out.append(f"Diagnostic: `{e['diagnostic']}`\n")
        rows = [(f"{s['ms']:,.1f}", "—" if not s["explain"] else f"{s['explain']['execution_ms']:,.1f}",
                 "" if not s["explain"] else s["explain"]["top"][:60], s["sql"][:110])
                for s in e["statements"]]
        out.append(table(["ms in session", "EXPLAIN ms", "top plan node", "statement"], rows, right=(0, 1)))
    for line in results.get("verdicts", []):
        out.append(f"\n**{line}**")
    return "\n".join(out) + "\n"
