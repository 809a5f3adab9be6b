"""The injector run in-process with a timer around each of its steps.  Usage: phases.py INJECTOR-ARGS...

Prints the injector's block on stdout and, as JSON on the last line of stderr, the time of each step (own times
in ms: nested timed steps subtracted), the imports, main() and the interpreter start (from BENCH_SPAWNED_AT, the
parent's time.time() just before it spawned this process). With BENCH_STUB=1 the query embedder is the stub
(stub_embedder.py). A step in PHASES that no longer exists stops the run with TimerTargetMissing.
"""

import time

STARTED_AT = time.time()  # first: the interpreter start ends here

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODULES = ("memory_apps.config", "memory_apps.wiring.resolver", "memory_apps.session.injection", "memory_apps.injector",
           "memory_adapters.vectors.numpy_vector_index", "memory_adapters.embedders.local_embedder", "memory_adapters.store.sqlite.store",
           "memory_adapters.project.git_context_source", "memory_core.usecases.retrieve",
           "memory_core.usecases.session_start", "memory_apps.wiring.recipes")
_S = "memory_adapters.store.sqlite.store:SqliteEntryStore."
_N = "memory_adapters.vectors.numpy_vector_index:NumpyVectorIndex."
_L = "memory_adapters.embedders.local_embedder:LocalOnnxEmbedder."
_R = "memory_core.usecases.retrieve:"
PHASES = (  # (target, label); the labels are keys of results/suite.json
    ("memory_core.usecases.session_start:SessionStart.run", "other (session glue: first-run check, metadata, leases)"),
    ("memory_core.usecases.session_start:SessionStart._collect",
     "waiting for the query vector (model load + embed on the worker)"),
    (_S + "__init__", "open store (header check, connect, migrate check)"),
    (_S + "count", "count()"),
    (_S + "vectors_version", "vectors_version()"),
    ("memory_adapters.project.git_context_source:GitProjectContextSource.collect", "context (feature files + git)"),
    ("memory_apps.wiring.recipes:plan_embedding", "embedding plan (pinned space, build embedder)"),
    (_R + "RetrieveAndRank.rank", "ranking glue (pinned space, pending count, dicts)"),
    (_S + "ranking_stats", "stats load (ranking_stats)"),
    (_L + "_load", "model load (import onnxruntime + tokenizers, session)"),
    (_L + "_embed", "query embedding (tokenise + ONNX run)"),
    (_N + "prepare", "vector load (cache file read, version check)"),
    (_N + "_from_store", "vector load from SQLite (BLOBs -> matrix)"),
    (_N + "similarities", "matmul + {id: score} dict"),
    (_S + "keyword_search", "keyword search (FTS5 bm25)"),
    (_R + "final_scores", "scoring (final_scores)"),
    (_R + "select_by_scores", "selection (select_by_scores)"),
    (_S + "get_many", "fetch selected entries"),
    ("memory_apps.session.injection:render_semantic_block", "render block"),
    (_S + "record_recall", "recall tracking (UPDATE)"),
    ("memory_apps.session.injection:write_tracking", "tracking file"),
)


def main(argv: list) -> None:
    """Import, patch, run the injector's main() and report the times."""
    from benchmarks.common.timer import PhaseTimer

    t0 = time.perf_counter()
    for module in MODULES:
        __import__(module)
    imports = (time.perf_counter() - t0) * 1000
    if os.environ.get("BENCH_STUB") == "1":
        import stub_embedder  # a sibling: this script runs by its path

        stub_embedder.install()
    timer = PhaseTimer(listed_in="PHASES in benchmarks/procs/phases.py").wrap_all(PHASES)
    t1 = time.perf_counter()
    sys.modules["memory_apps.injector"].main(argv)
    main_ms = (time.perf_counter() - t1) * 1000
    sys.stdout.flush()
    print(json.dumps({"imports_ms": imports, "main_ms": main_ms, "phases": dict(timer.own),
                      "startup_ms": (STARTED_AT - float(os.environ["BENCH_SPAWNED_AT"])) * 1000,
                      "exiting_at": time.time()}), file=sys.stderr)
    sys.stderr.flush()


if __name__ == "__main__":
    sys.path.insert(1, ROOT)  # run by its path: the benchmarks package (for the timer)
    main(sys.argv[1:])
