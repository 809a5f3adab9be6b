"""The check before use (ADR 26): the anchors an entry took in this project, compared with today's code, within a
deadline; each cited file read only when its stat identity differs from what the per-project cache holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping, Optional, Sequence

from memory_core.anchors.anchor import Anchor
from memory_core.anchors.regions import git_blob_id, parse_reference
from memory_core.anchors.states import CHANGED, CURRENT, MISSING, MOVED, AnchorState
from memory_core.ports.anchor_cache import AnchorCache, CachedFile
from memory_core.ports.code_files import CodeFiles, FileIdentity, StatCodeFiles
from memory_core.usecases.anchoring import anchor_now, region_of

if TYPE_CHECKING:
    from memory_core.entries.records import Entry
    from memory_core.session.deadline import Deadline

_NO_IDENTITY = FileIdentity(0, 0, 0, 0)  # code files that cannot stat: nothing is cached for them
_UNREADABLE = object()  # there, but not readable (too big, not a regular file any more): judged by nobody


@dataclass(frozen=True)
class AnchorReport:
    """What one check found: the states of each checked entry, and how many entries time did not allow."""

    states: dict[str, list[AnchorState]] = field(default_factory=dict)
    unchecked: int = 0


class CheckAnchors:
    """Checks entries' anchors against one project's working tree."""

    def __init__(self, files: CodeFiles, cache: Optional[AnchorCache] = None) -> None:
        self._files = files
        self._cache = cache

    def states(self, entries: Iterable["Entry"], project_identity: str,
               deadline: Optional["Deadline"] = None) -> dict[str, list[AnchorState]]:
        """{entry id: the states of its anchors taken in this project}; entries without such anchors (or left
        unchecked for lack of time) are absent."""
        return self.check(entries, project_identity, deadline).states

    def check(self, entries: Iterable["Entry"], project_identity: str,
              deadline: Optional["Deadline"] = None) -> AnchorReport:
        """`states`, with the count of entries the deadline left unchecked."""
        todo = [(entry.id, mine) for entry in entries
                if (mine := [a for a in entry.anchors if a.project == project_identity])]
        if not todo or not project_identity:
            return AnchorReport()
        stat = isinstance(self._files, StatCodeFiles)
        if stat:
            self._files.new_check(deadline)
        tree = _Tree(self._files, self._cache.load(project_identity) if stat and self._cache else {}, stat)
        found: dict[str, list[AnchorState]] = {}
        for done, (entry_id, anchors) in enumerate(todo):
            if deadline is not None and deadline.expired():
                self._keep(project_identity, tree)
                return AnchorReport(found, len(todo) - done)
            checked = [s for s in (tree.state(anchor) for anchor in anchors) if s is not None]
            if checked:
                found[entry_id] = checked
        self._keep(project_identity, tree)
        return AnchorReport(found)

    def _keep(self, project: str, tree: "_Tree") -> None:
        if tree.dirty and self._cache is not None:
            self._cache.save(project, tree.cached)


def notes(states: Sequence[AnchorState]) -> str:
    """The one line an entry shows for its anchors ("cites src/old.py, now src/new.py; ..."); "" when all current."""
    return "; ".join(dict.fromkeys(note for state in states if (note := state.note())))


def every_missing(states: Sequence[AnchorState]) -> bool:
    """Whether every checked citation of an entry is gone (ranked after the others; never hidden)."""
    return bool(states) and all(state.state == MISSING for state in states)


def anchors_for(references: Sequence[str], files: CodeFiles, project_identity: str,
                commit: str = "") -> tuple[Anchor, ...]:
    """The anchors a writer or an import stores: one per reference whose file exists in today's tree."""
    anchors = (anchor_now(reference, files, project_identity, commit) for reference in dict.fromkeys(references))
    return tuple(anchor for anchor in anchors if anchor is not None)


class _Tree:
    """Today's files as one check sees them: each looked at once, read only when the cache cannot vouch for it."""

    def __init__(self, files: CodeFiles, cached: Mapping[str, CachedFile], stat: bool) -> None:
        self._files = files
        self._stat = stat
        self.cached: dict[str, CachedFile] = dict(cached)
        self.dirty = False
        self._seen: dict[str, object] = {}  # path → CachedFile, None (absent) or _UNREADABLE
        self._content: dict[str, bytes] = {}

    def state(self, anchor: Anchor) -> Optional[AnchorState]:
        """How the anchor stands, or None when its file is there but cannot be judged."""
        path = parse_reference(anchor.reference).path
        known = self._look(path)
        if known is None:
            moved_to = self._files.renamed_to(path, anchor.blob, anchor.commit)
            return AnchorState(anchor.reference, MOVED if moved_to else MISSING, moved_to)
        if known is _UNREADABLE:
            return None
        if known.blob == anchor.blob:
            return AnchorState(anchor.reference, CURRENT)
        if anchor.region is not None and parse_reference(anchor.reference).kind != "file":
            if self._region(path, known, anchor.reference) == anchor.region:
                return AnchorState(anchor.reference, CURRENT)  # the file changed elsewhere: what it cites did not
        return AnchorState(anchor.reference, CHANGED)

    def _look(self, path: str):
        if path not in self._seen:
            self._seen[path] = self._first_look(path)
        return self._seen[path]

    def _first_look(self, path: str):
        identity = self._files.identity(path) if self._stat else None
        if self._stat and identity is None:
            if self.cached.pop(path, None) is not None:
                self.dirty = True
            return None
        kept = self.cached.get(path)
        if kept is not None and kept.identity == identity:
            return kept
        content = self._files.read(path)
        if content is None:
            return _UNREADABLE if self._stat else None
        self._content[path] = content
        fresh = CachedFile(identity or _NO_IDENTITY, git_blob_id(content), {})
        if self._stat:
            self.cached[path] = fresh
            self.dirty = True
        return fresh

    def _region(self, path: str, known: CachedFile, reference: str) -> Optional[str]:
        if reference in known.regions:
            return known.regions[reference]
        content = self._content.get(path)
        if content is None:
            content = self._files.read(path)
            if content is None or git_blob_id(content) != known.blob:
                return None  # changed since it was looked at: not judged current on a stale cache
            self._content[path] = content
        region = region_of(reference, content)
        updated = CachedFile(known.identity, known.blob, {**known.regions, reference: region})
        self._seen[path] = updated
        if self._stat and path in self.cached:
            self.cached[path] = updated
            self.dirty = True
        return region
