"""The adapters' plain functions the apps call (store upkeep, project identity, the store copy), each importing
its adapter when called, so a process pays only for what it uses."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence


def use_detect_secrets() -> None:
    """Let detect-secrets vet what the core's redaction flags (loaded on the first scan, ADR 12)."""
    from memory_adapters.detect_secrets_scanner import use_detect_secrets as install

    install()


def make_store_private(store_dir: str) -> Optional[str]:
    """Tighten the global store's permissions; the notice to show when something changed."""
    from memory_adapters.store.privacy import make_store_private as tighten

    return tighten(store_dir)


def move_aside(db_path: str, exc: BaseException) -> Optional[str]:
    """Move a corrupt (or foreign) database file aside, never deleting it; where it went, or None."""
    from memory_adapters.store.sqlite.health import move_aside as quarantine

    return quarantine(db_path, exc)


def restore_newest(db_path: str) -> Optional[str]:
    """Restore the newest sound snapshot of the database; its path, or None."""
    from memory_adapters.store.sqlite.snapshots import restore_newest as restore

    return restore(db_path)


def take_snapshot(db_path: str) -> Optional[str]:
    """Take the periodic snapshot of the SQLite database when one is due; its path, or None."""
    from memory_adapters.store.sqlite.snapshots import take_snapshot as snapshot

    return snapshot(db_path)


def read_tombstones(store_dir: str) -> dict:
    """The deleted entries the global store's markdown records, by id."""
    from memory_adapters.markdown.tombstones import read_tombstones as tombstones

    return tombstones(store_dir)


def read_history(store_dir: str) -> Any:
    """The history file of the global store's markdown: (events, retired entries, aliases) (ADR 26)."""
    from memory_adapters.markdown.history_file import read_history as history

    return history(store_dir)


def export_history(directory: str, events: Sequence[Any], retired: Sequence[Any]) -> tuple:
    """Write `entry-history.md` beside an export's category files; (path, events written)."""
    from memory_adapters.markdown.export import export_history as export

    return export(directory, events, retired)


def export_markdown(entries: Sequence[Any], directory: str) -> list:
    """Write entries as knowledge-bank markdown files; (path, entries written) of each file."""
    from memory_adapters.markdown.export import export_markdown as export

    return export(entries, directory)


def project_scopes(project_root: str) -> tuple:
    """The scopes a project's entries are recorded under (its repository identity, its path)."""
    from memory_adapters.project.identity import project_scopes as scopes

    return scopes(project_root)


def remembered_project_scopes(project_root: str, store_dir: str) -> tuple:
    """The project's scopes, remembered in the global store so a session start need not ask git."""
    from memory_adapters.project.identity_cache import remembered_project_scopes as scopes

    return scopes(project_root, store_dir)


def remember_project_identity(project_root: str, store_dir: str, identity: str) -> None:
    """Remember the project's identity in the global store."""
    from memory_adapters.project.identity_cache import remember_project_identity as remember

    remember(project_root, store_dir, identity)


def feature_branch_files(project_root: str, deadline: Any) -> list:
    """The files the project's feature branch changed, within the deadline."""
    from memory_adapters.project.git_context_source import feature_branch_files as files

    return files(project_root, deadline)


def process_started_at() -> float:
    """When this process started, on the monotonic clock."""
    from memory_adapters.system_clock import process_started_at as started

    return started()


def background_task(project_root: str) -> str:
    """The lease name of the background run for one project."""
    from memory_adapters.shared_work.background_work import background_task as task

    return task(project_root)


class StoreCopyRefused(ValueError):
    """The copy cannot be made: the target is the source, or holds another embedding space."""


def copy_tables(store: Any) -> Any:
    """The tables of an opened store, as the store copy reads and writes them."""
    from memory_adapters.store.copy.store_tables import copy_tables as tables

    return tables(store)


def empty_copy_tables(description: str, keeps_source_user: bool = False) -> Any:
    """A stand-in for a target that does not exist yet (a dry run creates nothing)."""
    from memory_adapters.store.copy.store_copy import EmptyCopyTables

    return EmptyCopyTables(description, keeps_source_user=keeps_source_user)


def holds_schema(url: str, connect_timeout: float) -> bool:
    """Whether the PostgreSQL database already holds this program's tables."""
    from memory_adapters.store.copy.postgres_tables import holds_schema as holds

    return holds(url, connect_timeout)


def copy_store(source: Any, target: Any, source_user: str, batch_size: int, dry_run: bool,
               progress: Callable[[int, int], None]) -> tuple[Any, Any]:
    """Copy one store's tables into another's; the copy and its report. StoreCopyRefused when it cannot be."""
    from memory_adapters.store.copy.store_copy import CopyRefused, StoreCopy

    copy = StoreCopy(source, target, source_user=source_user, batch_size=batch_size)
    try:
        return copy, copy.run(dry_run=dry_run, progress=progress)
    except CopyRefused as exc:
        raise StoreCopyRefused(str(exc)) from exc
