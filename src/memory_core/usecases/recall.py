"""Recall at the moment of need (issue 23): the few learnings a prompt or a file calls for, or none.

A prompt's candidates are the spec ranking's first few for the prompt's text; only those whose absolute
relevance passes the hook's floor are shown, so a prompt nothing in the store answers gets nothing. A file's are
the learnings whose `references` cite it: the same path first, then the same file name, then the same directory.
Whatever the session was shown already is left out.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field, replace
from typing import Collection, Mapping, Optional, Sequence

from memory_core.entries.records import Entry
from memory_core.ports.candidate_source import CandidateSource
from memory_core.ports.entry_store import EntryStore
from memory_core.ports.reference_index import ReferenceIndex
from memory_core.ranking.absolute_relevance import RelevanceModel, relevance_model
from memory_core.ranking.code_references import (SAME_FILE_NAME, SAME_PATH, clean_reference, files_named_in,
                                                 reference_match)
from memory_core.usecases.retrieve import RankedEntry, RetrieveAndRank, SignalReport

PROMPT_LIMIT = 3
FILE_LIMIT = 2
PROMPT_CANDIDATES = 10
"""The floor was fitted over the first 10 of this search for each prompt (benchmarks/relevance/pooled.py)."""
MAX_NAMED_FILES = 5
"""A pasted traceback names dozens of files: the first few are what the prompt is about."""
MAX_PROMPT_CHARS = 2_000
"""A pasted log or file is not a question: its first part is what the prompt is about, and FTS5 and the model
would only spend the deadline on the rest (the model reads 256 tokens anyway)."""


@dataclass
class PromptRecall:
    """The learnings for one prompt, best first, and how they were chosen (for the diagnostic line)."""

    shown: list[RankedEntry]
    model: RelevanceModel
    considered: int
    total: int
    vector: SignalReport = field(default_factory=SignalReport)
    keyword: SignalReport = field(default_factory=SignalReport)
    cited: list["FileMatch"] = field(default_factory=list)
    """Learnings citing a file the prompt names (shown before `shown`, within the same limit)."""
    already: int = 0
    """Learnings over the floor left out because the session was shown them already."""


@dataclass
class FileMatch:
    """A learning that cites a file, and how closely (1.0 same path, 0.6 same file name, 0.3 same directory)."""

    entry: Entry
    match: float
    cited: str
    """The reference that matched, as the learning wrote it."""

    @property
    def how(self) -> str:
        """`same file`, `same file name` or `same directory`."""
        if self.match >= SAME_PATH:
            return "same file"
        return "same file name" if self.match >= SAME_FILE_NAME else "same directory"


def prompt_query(prompt: str) -> str:
    """The text a prompt is searched with: itself, trimmed, its first MAX_PROMPT_CHARS characters."""
    return prompt.strip()[:MAX_PROMPT_CHARS]


def recall_for_prompt(retrieve: RetrieveAndRank, prompt: str, scopes: Optional[Sequence[str]],
                      already_shown: Collection[str] = (), limit: int = PROMPT_LIMIT,
                      store: Optional[EntryStore] = None, references: Optional[ReferenceIndex] = None,
                      index: Optional[CitationIndex] = None) -> PromptRecall:
    """At most `limit` learnings for `prompt`, none the session was shown already: first (with `store` and
    `references`) up to FILE_LIMIT citing a file the prompt names, then those over the hook floor."""
    text = prompt_query(prompt)
    seen = set(already_shown)
    cited: list[FileMatch] = []
    named = files_named_in(text)[:MAX_NAMED_FILES]
    if store is not None and references is not None and named:
        index = index or CitationIndex(references.cited_files())
        for path in named:
            taken = set(already_shown) | {m.entry.id for m in cited}
            cited += [m for m in recall_for_file(store, references, path, scopes, taken, FILE_LIMIT - len(cited),
                                                 index) if m.match >= SAME_FILE_NAME]  # a directory is not the file
            if len(cited) >= min(FILE_LIMIT, limit):
                break
    limit -= len(cited)
    already_shown = set(already_shown) | {m.entry.id for m in cited}
    found = retrieve.search(text, limit=PROMPT_CANDIDATES + min(len(already_shown), PROMPT_CANDIDATES),
                            scopes=scopes)
    model = found.relevance_model or relevance_model(found.vector.ran)  # the store's keyword scale decides
    # the hook's own relevance, so the shown entries carry the number compared with the hook floor
    fresh = [replace(r, relevance=model.hook_relevance(r.signals)) for r in found.selected
             if r.entry.id not in already_shown]
    if model.order_by_relevance:  # stable: equal relevance keeps the ranking's order
        candidates = sorted(fresh[:PROMPT_CANDIDATES], key=lambda r: -(r.relevance or 0.0))
    else:  # a model fitted on the ranking's first few as they come
        candidates = fresh[:limit]
    shown = [r for r in candidates if (r.relevance or 0.0) >= model.hook_floor][:max(limit, 0)]
    already = sum(1 for r in found.selected[:PROMPT_CANDIDATES + len(seen)]
                  if r.entry.id in seen and model.hook_relevance(r.signals) >= model.hook_floor)
    return PromptRecall(shown, model, len(candidates), found.total, found.vector, found.keyword, cited, already)


class CitationIndex:
    """Which learnings cite which files, looked up by file name and directory (a 10k-entry store cites
    hundreds of thousands of files: matching each against every reference on each call takes seconds)."""

    def __init__(self, cited: Mapping[str, Sequence[str]]) -> None:
        self._by_name: dict[str, list[tuple[str, str]]] = {}
        self._by_dir: dict[str, list[tuple[str, str]]] = {}
        for entry_id, references in cited.items():
            for reference in references:
                directory, name = posixpath.split(clean_reference(reference))
                self._by_name.setdefault(name, []).append((entry_id, reference))
                if directory:
                    self._by_dir.setdefault(directory, []).append((entry_id, reference))

    def matches(self, path: str) -> dict[str, tuple[float, str]]:
        """{entry id: (closeness, the reference)} of the learnings citing `path`, its name or its directory."""
        directory, name = posixpath.split(path)
        found: dict[str, tuple[float, str]] = {}
        for entry_id, reference in self._by_name.get(name, []) + self._by_dir.get(directory, []):
            match = reference_match([reference], [path])
            if match > found.get(entry_id, (0.0, ""))[0]:
                found[entry_id] = (match, reference)
        return found


def recall_for_file(store: EntryStore, references: ReferenceIndex, path: str, scopes: Optional[Sequence[str]],
                    already_shown: Collection[str] = (), limit: int = FILE_LIMIT,
                    index: Optional[CitationIndex] = None) -> list[FileMatch]:
    """At most `limit` learnings citing `path` (repository-relative), closest first, none shown already
    (`index`: a CitationIndex of `references` kept by a long-running host)."""
    index = index or CitationIndex(references.cited_files())
    matches = {i: m for i, m in index.matches(path).items() if i not in already_shown}
    if not matches:
        return []
    visible = _visible(store, list(matches), scopes)
    entries = {e.id: e for e in store.get_many([i for i in matches if i in visible])}
    # Closest first; among equals the learning observed most often, then the newest, then by id (stable).
    ranked = sorted(entries.values(), key=lambda e: (-matches[e.id][0], -e.observation_count,
                                                     -e.updated_at.timestamp(), e.id))
    return [FileMatch(e, *matches[e.id]) for e in ranked[:limit]]


def _visible(store: EntryStore, ids: list[str], scopes: Optional[Sequence[str]]) -> set[str]:
    """Which of `ids` a session of these scopes may see (universal entries and the scopes' own)."""
    if scopes is None:
        return set(ids)
    if isinstance(store, CandidateSource):
        return {s.id for s in store.ranking_stats_of(ids, scopes)}
    wanted = set(ids)
    return {s.id for s in store.ranking_stats(scopes) if s.id in wanted}
