"""The markdown report of `python -m benchmarks latency`, and how busy other processes kept the machine."""

from __future__ import annotations

from benchmarks.latency.passes import PART_LABELS


def render(results: dict) -> str:
    """The latency table, the breakdown table and a note on the machine."""
    sizes = list(results["sizes"])
    lines = ["## Warm search latency (ms per call, limit 10)", "",
             "| entries | MemoryService.search median | p95 | MCP search_memory median | p95 | floor median | "
             "ratio to floor | same queries again: median | p95 |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for size in sizes:
        r = results["sizes"][size]
        mcp = r["mcp"] or {"median_ms": "-", "p95_ms": "-"}
        lines.append(f"| {size} | {r['service']['median_ms']} | {r['service']['p95_ms']} | {mcp['median_ms']} | "
                     f"{mcp['p95_ms']} | {r['floor']['median_ms']} | {r['ratio_to_floor']} | "
                     f"{r['service_repeated_queries']['median_ms']} | {r['service_repeated_queries']['p95_ms']} |")
    lines += ["", "## Breakdown of MemoryService.search (median ms per call, separate instrumented pass)", "",
              "| part | " + " | ".join(f"{s} entries" for s in sizes) + " |",
              "|---|" + "---:|" * len(sizes)]
    for key, label in [*PART_LABELS.items(), ("total", "total (instrumented)")]:
        lines.append(f"| {label} | " + " | ".join(str(results["sizes"][s]["breakdown_ms"].get(key, "-"))
                                                  for s in sizes) + " |")
    missing = sorted({m for s in sizes for m in results["sizes"][s].get("breakdown_missing", [])})
    if missing:
        lines += ["", f"Not timed (absent from the measured code; their time is in 'everything else'): "
                      f"{', '.join(missing)}."]
    machine = results["machine"]
    lines += ["", "Each pass searches different queries, except 'same queries again' (the first pass's, repeated). "
                  "Floor: the query embedding alone plus one matrix-vector product over the stored matrix (the faster "
                  "of `matrix @ vector` and `np.einsum`). "
                  f"Source: {results['src']}. {machine['cores']} cores; load average {machine['loadavg_before']} "
                  f"before, {machine['loadavg_after']} after; other processes kept {machine['others_cores']} "
                  "cores busy on average during the run (0 on an idle machine)."]
    return "\n".join(lines)
