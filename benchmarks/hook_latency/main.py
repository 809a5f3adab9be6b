"""`python -m benchmarks hooks-latency`: the prompt and file hooks as Claude Code runs them (issue 23), whole
processes, at 1k and 10k entries, warm and cold, against the floor measured in the same interleaved rounds; a
killed warm process and its replacement; what a warm-answered hook imports.

    python -m benchmarks hooks-latency [--sizes 1000,10000] [--calls 30] [--keep]

The stores are the `latency` section's (synthetic prose entries, vectors near real embeddings of the local model,
local space pinned, a git project marked imported), with one entry in 10 citing a source file and six learnings
embedded by the model itself, which half the prompts ask about. Per size: the warm process is started and waited
for (it answers a prompt with the model loaded), then `--calls` rounds of floor, prompt hook warm, prompt hook
cold, file hook warm, file hook cold, after one uncounted round. Then the warm server is SIGKILLed and the same
prompt is asked until its replacement (spawned by the first hook that finds none) has answered. At the largest
size, `--import-runs` warm-answered hooks run under `python -X importtime`. Every warm process the run started, or
made the hooks start, is stopped (SIGTERM) at the end. Prints markdown tables; writes
benchmarks/results/hooks-latency.json (or --out). The parts are in benchmarks/hook_latency/.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import RESULTS as RESULTS_DIR
from benchmarks.common.processes import log
from benchmarks.common.prose import vector_pool
from benchmarks.hook_latency import events, imports, replacement, warm
from benchmarks.hook_latency.hook_process import PROMPT, hook_env
from benchmarks.common.machine import busy_seconds, others_cores
from benchmarks.hook_latency.report import render
from benchmarks.hook_latency.rounds import timed_rounds
from benchmarks.hook_latency.store import build

RESULTS = RESULTS_DIR / "hooks-latency.json"


def measure(size: int, workdir: Path, args, embedder, pool, started: list, stores: list) -> dict:
    """Build the store of `size`, start its warm server, time the rounds, kill the server and watch it replaced."""
    store, project = workdir / f"store-{size}", workdir / f"project-{size}"
    stores.append(store)
    built = build(store, project, size, pool, embedder)
    log(f"hooks-latency: {size:,} entries built in {built['build_s']} s")
    envs = {"warm": hook_env(workdir / "home", workdir, warm=True, deadline_s=args.deadline),
            "cold": hook_env(workdir / "home", workdir, warm=False, deadline_s=args.deadline)}
    started.append(warm.start(store, envs["warm"]))
    wait_ready(store, project, envs["warm"])
    pids = warm.server_pids(store)
    deadline_ms = 1000 * (args.deadline or 1.0)
    result = {"store": built, **timed_rounds(store, project, size, args.calls, envs, log, deadline_ms)}
    result["warm_server_stayed_up"] = warm.server_pids(store) == pids
    if size == max(args.sizes) and args.import_runs:
        result["imports"] = imports.probe(store, project, envs["warm"], args.import_runs)
    if args.replacement_prompts:
        log(f"hooks-latency: {size:,} entries: killing the warm server")
        result["replacement"] = replacement.kills(store, project, envs["warm"], args.kills,
                                                  args.replacement_prompts)
    return result


def wait_ready(store: Path, project: Path, env: dict) -> None:
    """Until the store's warm server answers a prompt hook request with the model's help (the answer is never
    confirmed: nothing counts as recalled)."""
    event = json.loads(events.prompt_event(project, "warming up: " + replacement.PROMPT_TEXT))

    def ready() -> bool:
        request = {"hook": PROMPT, "project_root": str(project), "defer_to_project": False, "event": event,
                   "deadline_at": time.time() + 60}
        reply = warm.ask(store, request, env, timeout=90)
        return bool(reply and "semantic: active" in reply.get("output", ""))

    warm.wait_for(ready, "the warm server to answer with the model loaded")


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Measure every size, print the tables and write the JSON results."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000", help="store sizes, comma-separated (default: 1000,10000)")
    parser.add_argument("--calls", type=int, default=30, help="counted rounds per size (default: 30)")
    parser.add_argument("--replacement-prompts", type=int, default=20,
                        help="at most this many prompts after the kill (0: skip the scenario; default: 20)")
    parser.add_argument("--kills", type=int, default=3, help="warm servers SIGKILLed per size (default: 3)")
    parser.add_argument("--import-runs", type=int, default=5, help="hooks run under -X importtime (0: skip)")
    parser.add_argument("--deadline", type=float, default=None,
                        help="the hooks' deadline in seconds (default: the product's, 1 s; a smoke test on a "
                             "loaded machine passes a long one so that no answer depends on its speed)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--out", default=str(RESULTS), help="where the JSON results go")
    args = parser.parse_args(argv)
    args.sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder
    from memory_core.embedding.normalising import NormalisingEmbedder

    workdir = Path(tempfile.mkdtemp(prefix="iflow-hooks-"))  # short: the socket's path must fit AF_UNIX
    (workdir / "home").mkdir()
    os.environ["HOME"] = str(workdir / "home")  # nothing this process does touches the real ~/.claude or ~/.cache
    os.environ["XDG_CACHE_HOME"] = str(workdir / "home" / ".cache")
    os.environ["GIT_CEILING_DIRECTORIES"] = str(workdir)
    started_at, busy_at_start = time.perf_counter(), busy_seconds(children=True)
    results: dict = {"machine": {"loadavg_before": [round(x, 2) for x in os.getloadavg()],
                                 "cores": len(os.sched_getaffinity(0)), "python": sys.version.split()[0]},
                     "calls": args.calls,
                     "deadline_ms": 1000 * (args.deadline or 1.0), "sizes": {}}
    started: list = []
    stores: list[Path] = []
    try:
        embedder = NormalisingEmbedder(LocalOnnxEmbedder())
        pool = vector_pool(embedder)
        for size in args.sizes:
            results["sizes"][str(size)] = measure(size, workdir, args, embedder, pool, started, stores)
    finally:
        left = [str(pid) for pid in warm.stop_all(stores, started)] + warm.strays(workdir)
        if left:
            print(f"[hooks-latency] processes of this run still alive after SIGTERM: {left}", file=sys.stderr)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"[hooks-latency] kept {workdir}", file=sys.stderr)
    results["processes_left"] = left
    results["imports"] = results["sizes"][str(max(args.sizes))].pop("imports", None)
    results["machine"]["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    results["machine"]["others_cores"] = others_cores(busy_at_start, time.perf_counter() - started_at, children=True)
    print(render(results))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 1 if left else 0
