"""The prompt and file hooks' answers (issue 23), the same in a hook process of its own and in the warm process.

Each answer is the hook JSON to print, or "" (print nothing) when nothing passes: no learning relevant enough,
nothing new for this session, a tool that reads no file. What the session was shown goes to its ledger, and the
entries shown count as recalled, once the answer is out (`HookAnswer.commit`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Callable, Optional

from memory_apps.session.journaling import journal_file, journal_prompt, nothing_shown
from memory_core.errors import StorageError
from memory_core.ports.session_ledger import InvalidSessionId, SessionShown, checked_session_id
from memory_core.ranking.context_query import text_passages
from memory_core.session.deadline import Deadline
from memory_core.anchors.marks import AnchorMarks
from memory_core.session.moment_rendering import FILE_TITLE, PROMPT_TITLE, render_moment_block
from memory_core.usecases.check_anchors import check_before_use, lowered_ids
from memory_core.safety.inert import one_line
from memory_core.usecases.recall import (FILE_LIMIT, PROMPT_LIMIT, CitationIndex, prompt_query, recall_for_file,
                                         recall_for_prompt)

PROMPT_HOOK, FILE_HOOK = "user-prompt-submit", "pre-tool-use"
EVENT_NAMES = {PROMPT_HOOK: "UserPromptSubmit", FILE_HOOK: "PreToolUse"}
FILE_TOOLS = frozenset({"Read", "Edit", "MultiEdit", "Write"})
EMBED_RESERVE_S = 0.2
"""What ranking, rendering and the ledger need after the query vector: past that, the keyword path answers."""
LEDGER_MAX_AGE, LEDGER_KEEP = timedelta(days=7), 200
KEPT_WIRINGS = 4
NO_VECTOR_IN_TIME = "query embedding not ready by the deadline"
NO_TIME_FOR_MODEL = "no time left to load the model"
COLD_MODEL_MIN_S = 0.7
"""A cold hook loads the model only with this much of its deadline left (loading takes ~0.4 s on a quiet
machine, and slows everything else on a busy one)."""
SPARE = 2
"""Candidates beyond the limit, for when a hook of the same session running at once takes one first."""
HOOK_CHECK_RESERVE_S = 0.05
"""Left after the check of the candidates' citations: claiming, rendering and answering."""


@dataclass
class HookCall:
    """One hook event to answer, and where."""

    hook: str
    event: dict
    project_root: str
    global_store: str
    defer_to_project: bool = False


@dataclass
class HookAnswer:
    """What to print (hook JSON, or "" for nothing), and what to record once it is printed (the entries shown
    count as recalled; the session's ledger was updated when they were chosen)."""

    output: str = ""
    commit: Callable[[], None] = field(default=lambda: None)


def hook_json(hook: str, context: str) -> str:
    """The answer Claude Code reads for this hook: additional context, nothing that allows or blocks."""
    return json.dumps({"hookSpecificOutput": {"hookEventName": EVENT_NAMES[hook], "additionalContext": context}})


def prompt_hash(prompt: str) -> str:
    """What the ledger keeps of a prompt: never its text."""
    return hashlib.sha256(prompt.strip().encode("utf-8", "surrogatepass")).hexdigest()[:32]


def file_in_project(file_path: object, project_root: str, cwd: object = None) -> Optional[str]:
    """The file's path relative to the project (as references are written), or None outside it or unusable."""
    if not isinstance(file_path, str) or not file_path.strip() or "\0" in file_path:
        return None
    base = cwd if isinstance(cwd, str) and cwd else project_root
    path = os.path.realpath(os.path.join(base, file_path))
    root = os.path.realpath(project_root)
    if path != root and not path.startswith(root.rstrip(os.sep) + os.sep):
        return None
    relative = os.path.relpath(path, root)
    return None if relative == "." else relative.replace(os.sep, "/")


class MomentHost:
    """Answers prompt and file hooks; keeps, per settings and store, the wiring and the searches' model and
    vectors, so the warm process answers its next call without loading them again."""

    def __init__(self, keep_models: bool = False) -> None:
        self._keep_models = keep_models
        self._wirings: OrderedDict[tuple, tuple[Any, Any]] = OrderedDict()
        self._lock = threading.Lock()  # the warm-up thread and the calls share the wirings
        self._building = threading.Lock()  # ...and must not load the model twice
        self._citations: dict[int, tuple[object, CitationIndex]] = {}  # per store: change token, index

    def answer(self, call: HookCall, deadline: Deadline) -> HookAnswer:
        """The answer to one hook call; never raises (a failure answers nothing and says why on stderr)."""
        try:
            return self._answer(call, deadline)
        except Exception as exc:  # noqa: BLE001 - a hook must never fail the prompt or the tool call
            print(f"iflow-memory: {call.hook} hook: {type(exc).__name__}: {exc}", file=sys.stderr)
            return HookAnswer()

    def _answer(self, call: HookCall, deadline: Deadline) -> HookAnswer:
        from memory_apps.config import load_config

        if call.hook not in EVENT_NAMES or not os.path.isdir(call.project_root):
            return HookAnswer()
        if not os.path.isdir(call.global_store):  # a hook never creates a store: the session start does
            return HookAnswer()
        settings = load_config(call.project_root)
        if not settings.injection_enabled or not settings.semantic_enabled:
            return HookAnswer()
        if call.defer_to_project and _project_runs(call.project_root, EVENT_NAMES[call.hook]):
            return HookAnswer()
        wiring, kept = self._wiring(settings, call.global_store)
        session = _session_id(call.event)
        ledger = wiring.session_ledger()
        shown = _shown(ledger, session)
        if session is not None and shown.is_empty():  # a new session: now and then, forget old ones
            _prune(ledger)
        if call.hook == PROMPT_HOOK:
            return self._prompt(call, wiring, kept, ledger, session, shown, deadline)
        return self._file(call, wiring, ledger, session, shown, deadline)

    def warm_up(self, global_store: str) -> None:
        """Load the default settings' query model and vectors now (the warm process, as it starts), so its first
        answer need not; never raises."""
        from memory_apps.config import MemoryConfig

        try:
            with self._building:
                retrieve = self._wiring(MemoryConfig(), global_store)[1].current()
                if retrieve.embedder is not None and retrieve.vector_index is not None:
                    retrieve.vector_index.similarities(retrieve.embedder.embed_query("warm up"))
        except Exception as exc:  # noqa: BLE001 - the first answer loads them instead
            print(f"iflow-memory: warm-up skipped: {type(exc).__name__}: {exc}", file=sys.stderr)

    def _wiring(self, settings, global_store: str):
        from memory_apps.session.kept_retrieval import KeptRetrieval
        from memory_apps.wiring.resolver import RecipeWiring
        from memory_apps.wiring.values import container_values

        key = (settings, global_store)
        with self._lock:
            if key not in self._wirings:
                values = container_values(settings, global_store, hook_path=True, keep_models=self._keep_models)
                wiring = RecipeWiring(values)
                self._wirings[key] = (wiring, KeptRetrieval(wiring))
                while len(self._wirings) > KEPT_WIRINGS:
                    self._wirings.popitem(last=False)
            self._wirings.move_to_end(key)
            return self._wirings[key]

    def _prompt(self, call: HookCall, wiring, kept, ledger, session: Optional[str], shown: SessionShown,
                deadline: Deadline) -> HookAnswer:
        from memory_apps.wiring.adapter_functions import remembered_project_scopes

        prompt = call.event.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return HookAnswer()
        asked = prompt_hash(prompt)
        if asked in shown.prompt_hashes:  # the same prompt again: what it calls for was shown already
            return HookAnswer()
        scopes = remembered_project_scopes(call.project_root, call.global_store)
        with self._building:
            # A process of its own that is already late leaves the model alone: loading it would take the CPU
            # the keyword path needs to answer in time (the warm process answers the next prompt by meaning).
            late = not self._keep_models and deadline.remaining() < COLD_MODEL_MIN_S
            retrieve = (wiring.retrieve(embedder=None, vector_index=None, embedder_problem=NO_TIME_FOR_MODEL)
                        if late else _retrieve_within(wiring, kept, prompt_query(prompt), deadline))
        if deadline.remaining() <= 0:
            return HookAnswer()
        store = wiring.store()
        recall = recall_for_prompt(retrieve, prompt, scopes, shown.entry_ids, limit=PROMPT_LIMIT + SPARE,
                                   store=store, references=store, index=self._citation_index(store))
        notes = {m.entry.id: f"cites {one_line(m.cited)} ({m.how})" for m in recall.cited}
        notes.update((r.entry.id, f"relevance {r.relevance:.2f}") for r in recall.shown)
        entries = {m.entry.id: m.entry for m in recall.cited} | {r.entry.id: r.entry for r in recall.shown}
        marks = _checked(wiring, call.project_root, scopes, list(entries.values()), deadline)
        # A prompt answered by the model is not asked again; one answered by keywords alone may be, warm.
        ids = _claim(ledger, session, lowered_ids(list(notes), marks), PROMPT_LIMIT,
                     prompts=[asked] if recall.vector.ran and notes else [])
        if deadline.remaining() <= 0:
            return HookAnswer()
        items = [(entries[i], notes[i]) for i in ids]
        state = "active" if recall.vector.ran else f"keywords only ({recall.vector.reason})"
        diagnostic = (f"*Memory: {len(items)} of {recall.total} for this prompt | semantic: {state} "
                      f"| floor: relevance {recall.model.hook_floor:.2f}{_code_words(marks, ids)}*")
        block = render_moment_block(PROMPT_TITLE, items, diagnostic, marks.notes)
        # Nothing shown is recorded with why: learnings shown earlier (or claimed by a hook of the same session
        # running at once), or none over the floor.
        recorded = diagnostic if block else nothing_shown(diagnostic, recall.already + len(notes),
                                                          "nothing over the floor")
        journal_prompt(wiring, call.project_root, call.event, session, recall, ids, marks, recorded)
        return HookAnswer(hook_json(PROMPT_HOOK, block) if block else "", lambda: _count_recalls(wiring, ids))

    def _file(self, call: HookCall, wiring, ledger, session: Optional[str], shown: SessionShown,
              deadline: Deadline) -> HookAnswer:
        from memory_apps.wiring.adapter_functions import remembered_project_scopes

        if call.event.get("tool_name") not in FILE_TOOLS:
            return HookAnswer()
        tool_input = call.event.get("tool_input")
        raw = tool_input.get("file_path") if isinstance(tool_input, dict) else None
        path = file_in_project(raw, call.project_root, call.event.get("cwd"))
        if path is None or path in shown.file_paths:
            return HookAnswer()
        scopes = remembered_project_scopes(call.project_root, call.global_store)
        store = wiring.store()
        index = self._citation_index(store)
        matches = recall_for_file(store, store, path, scopes, shown.entry_ids, FILE_LIMIT + SPARE, index)
        marks = _checked(wiring, call.project_root, scopes, [m.entry for m in matches], deadline)
        ids = _claim(ledger, session, lowered_ids([m.entry.id for m in matches], marks), FILE_LIMIT, files=[path])
        if deadline.remaining() <= 0:
            return HookAnswer()
        found = {m.entry.id: m for m in matches}
        items = [(found[i].entry, f"cites {one_line(found[i].cited)} ({found[i].how})") for i in ids]
        diagnostic = (f"*Memory: {len(items)} for {path} | by what they cite: the file, its name, its directory"
                      f"{_code_words(marks, ids)}*")
        block = render_moment_block(FILE_TITLE, items, diagnostic, marks.notes)
        already = len([i for i in index.matches(path) if i in shown.entry_ids]) + len(matches)
        recorded = diagnostic if block else nothing_shown(diagnostic, already, "no memory cites it")
        journal_file(wiring, call.project_root, session, path, [found[i] for i in ids], marks, recorded)
        return HookAnswer(hook_json(FILE_HOOK, block) if block else "", lambda: _count_recalls(wiring, ids))

    def _citation_index(self, store) -> CitationIndex:
        """Which learnings cite which files, kept while nobody commits (a warm process reuses it)."""
        change_token = getattr(store, "change_token", None)
        token = change_token() if callable(change_token) else None
        kept = self._citations.get(id(store))
        if kept is not None and token is not None and kept[0] == token:
            return kept[1]
        index = CitationIndex(store.cited_files())
        if token is not None:
            self._citations = {id(store): (token, index)}
        return index


def _checked(wiring, project_root: str, scopes, entries, deadline: Deadline) -> AnchorMarks:
    """The marks of the hook's candidates: their citations of this project checked against its tree, leaving
    HOOK_CHECK_RESERVE_S for the answer (the warm process checks the project of each call, not its own)."""
    try:
        check = wiring.anchor_checks()(project_root)
        return check_before_use(check, entries, scopes[0] if scopes else None, deadline, HOOK_CHECK_RESERVE_S)
    except Exception as exc:  # noqa: BLE001 - a check that fails leaves the learnings unmarked, never unshown
        print(f"iflow-memory: citations not checked: {type(exc).__name__}: {exc}", file=sys.stderr)
        return AnchorMarks()


def _code_words(marks: AnchorMarks, shown_ids) -> str:
    words = marks.diagnostic(shown_ids)
    return f" | code: {words}" if words else ""


def _retrieve_within(wiring, kept, text: str, deadline: Deadline):
    """The searches' use case once the query (and its clauses) are embedded, or one without vectors when the
    model does not answer before the deadline (loading it is most of a cold hook's time)."""
    retrieve = kept.current()
    if retrieve.embedder is None or retrieve.vector_index is None:
        return retrieve
    clauses = text_passages(text)
    texts = list(dict.fromkeys([text] + (clauses if len(clauses) > 1 else [])))
    done = threading.Event()

    def embed() -> None:
        try:
            for t in texts:  # remembered: the search asks for the same texts and gets them at once
                retrieve.embedder.embed_query(t)
        except Exception:  # noqa: BLE001 - the search asks again and reports the failure on its line
            pass
        finally:
            done.set()

    threading.Thread(target=embed, name="iflow-memory-query", daemon=True).start()
    if deadline.earlier(EMBED_RESERVE_S).wait(done):
        return retrieve
    return wiring.retrieve(embedder=None, vector_index=None, embedder_problem=NO_VECTOR_IN_TIME)


def _session_id(event: dict) -> Optional[str]:
    try:
        return checked_session_id(event.get("session_id"))
    except InvalidSessionId:
        return None  # no ledger for this call: it can still be answered


def _shown(ledger, session: Optional[str]) -> SessionShown:
    if session is None:
        return SessionShown()
    try:
        return ledger.shown(session)
    except StorageError as exc:
        print(f"iflow-memory: session ledger unreadable: {exc}", file=sys.stderr)
        return SessionShown()


def _claim(ledger, session: Optional[str], ids: list[str], limit: int, prompts=(), files=()) -> list[str]:
    """The first `limit` of `ids` this session has not seen, recorded as seen in the same step (hooks of one
    session may run at once); without a usable session id, simply the first `limit`."""
    if session is None:
        return ids[:limit]
    try:
        return ledger.claim(session, ids, limit, prompts, files)
    except (StorageError, OSError) as exc:
        print(f"iflow-memory: session ledger not updated: {exc}", file=sys.stderr)
        return ids[:limit]


def _count_recalls(wiring, ids: list[str]) -> None:
    """Count the entries just shown as recalled (spec D8); never raises."""
    if not ids:
        return
    try:
        wiring.store().record_recall(ids, wiring.clock().now())
    except (StorageError, OSError) as exc:
        print(f"iflow-memory: recall not recorded: {exc}", file=sys.stderr)


def _prune(ledger) -> None:
    try:
        ledger.prune(LEDGER_MAX_AGE, LEDGER_KEEP)
    except (StorageError, OSError) as exc:
        print(f"iflow-memory: old sessions not pruned: {exc}", file=sys.stderr)


def _project_runs(project_root: str, event_name: str) -> bool:
    """Whether the project's own settings run this hook (then a user-scope one stays quiet)."""
    from memory_apps.claude.settings import project_hook_file

    try:
        return project_hook_file(project_root, event_name) is not None
    except Exception:  # noqa: BLE001 - settings we cannot make sense of must not cost the prompt its memory
        return False


def record_session_start(global_store: str, event: dict, shown_ids: list[str]) -> None:
    """The session-start hook's part of the ledger: a compacted or cleared context starts it over, what a
    session start shows is never shown again by the prompt and file hooks, old sessions are pruned."""
    from memory_apps.wiring.resolver import plain_wiring

    session = _session_id(event)
    if session is None or not os.path.isdir(global_store):
        return
    try:
        ledger = plain_wiring(global_store).session_ledger()
        if str(event.get("source", "startup")) in ("clear", "compact"):
            ledger.start_over(session)
        if shown_ids:
            ledger.record(session, shown_ids)
        ledger.prune(LEDGER_MAX_AGE, LEDGER_KEEP)
    except (StorageError, OSError) as exc:
        print(f"iflow-memory: session ledger not updated: {exc}", file=sys.stderr)
