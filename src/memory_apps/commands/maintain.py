"""`iflow-memory maintain`: the background run a session start leaves its unfinished work to.

It finishes a project's first import, embeds every entry without a vector and rebuilds the vector cache, each
under its lease, so concurrent sessions and runs never do the same work twice; then it embeds the project's
current context query, so the next session of that context ranks by meaning without loading the model. Session
starts spawn it detached; running it by hand is harmless.
"""

from __future__ import annotations

import argparse
import os

from memory_apps.formatting import database_failed, fail
from memory_apps.store_paths import STORE_HELP, global_store_dir, missing_for_reading
from memory_apps.wiring.adapter_functions import background_task
from memory_apps.wiring.resolver import plain_wiring
from memory_core.ports.shared_work import IMPORT_TASK, VECTORS_TASK, SharedWork

MAX_RUNTIME_S = 20 * 60  # a run ends itself well before `doctor` calls a lease holder stuck
WAIT_FOR_SESSION_S = 10.0  # the session that started the run may still hold a lease for a moment


def maintain_command(args: argparse.Namespace) -> int:
    """Finish the import, the embeddings and the vector cache; exit 0 also when another run is doing it."""
    from memory_apps.config import load_config
    from memory_apps.upkeep.opening import keep_snapshot
    from memory_apps.wiring.container import build_container
    from memory_core.errors import StorageError

    store_dir = global_store_dir(args.global_store)
    root = os.path.abspath(args.project_root)
    problem = missing_for_reading(store_dir, root)  # it finishes what a session started: never a new store
    if problem:
        return fail(problem)
    work = plain_wiring(store_dir).shared_work()
    if not work.leases.claim_within(background_task(root), 1.0):
        return 0  # another run already works for this project
    try:
        container = build_container(load_config(root), store_dir, project_root=root)
        done = _finish_import(container, work, root, store_dir)
        if keep_snapshot(container):
            done.append("snapshot taken")
        done += _finish_vectors(container, work)
        if container.session_start().warm_query_vector(root):
            done.append("query vector of the current context cached")
        elif _warm_model_cache(container):
            done.append("local model cache ready")
    except StorageError as exc:
        return database_failed(exc)
    finally:
        work.release(background_task(root))
    if not args.quiet:
        print("; ".join(done) or "nothing to do")
    return 0


def _finish_import(container, work: SharedWork, root: str, store_dir: str) -> list[str]:
    importer = container.importer()
    if importer.imported(root):
        return []
    task = f"{IMPORT_TASK}:{root}"
    if not work.leases.claim_within(task, WAIT_FOR_SESSION_S):
        return ["import: another process is importing"]
    try:
        report = importer.run(root, store_dir)
    finally:
        work.release(task)
    return [f"import: {report.new} new, {report.updated} updated, {report.unchanged} unchanged"]


def _finish_vectors(container, work: SharedWork) -> list[str]:
    from memory_apps.upkeep.embedding_jobs import embed_everything

    if not work.leases.claim_within(VECTORS_TASK, WAIT_FOR_SESSION_S):
        return ["vectors: another process is embedding"]
    try:
        report, problem = embed_everything(container, deadline_s=MAX_RUNTIME_S)
    finally:
        work.release(VECTORS_TASK)
    if report is None:
        return [f"vectors: {problem}"]
    return [f"vectors: {report.embedded} embedded, {report.remaining} remaining"]


def _warm_model_cache(container) -> bool:
    """Load the local model once, so its optimised copy is built here rather than on a session's clock."""
    from memory_core.errors import EmbeddingError

    plan = container.embedding_plan(want_target=False)
    if plan.query is None or plan.query.provider_name != "local":
        return False
    try:
        plan.query.embed_query("warm up")
    except EmbeddingError:
        return False
    return True


def add_command(commands, fmt) -> None:
    """Register `maintain` on the CLI's sub-parsers."""
    maintain = commands.add_parser(
        "maintain", help="finish background work: first import, pending vectors, vector cache",
        description="Finish what session starts leave to the background: the rest of a project's first "
                    "import, vectors for entries without one, the vector cache file, and the query vector of "
                    "the project's current context. Session starts run it detached; one run per project at a "
                    "time (see `iflow-memory doctor`).",
        formatter_class=fmt,
        epilog="example:\n  iflow-memory maintain --project-root .\n\n"
               "exit status: 0 done (or another run is doing it), 2 database error")
    maintain.add_argument("--project-root", default=os.getcwd(), help="project directory (default: current)")
    maintain.add_argument("--global-store", default=None, help=STORE_HELP)
    maintain.add_argument("--quiet", action="store_true", help="print nothing")
    maintain.set_defaults(handler=maintain_command)
