"""The check before use (ADR 26): the anchors an entry took in this project, compared with today's code, within a
deadline; each cited file read only when its stat identity differs from what the per-project cache holds."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Iterable, NamedTuple, Optional, Sequence

from memory_core.anchors.anchor import Anchor
from memory_core.anchors.marks import AnchorMarks
from memory_core.anchors.regions import git_blob_id, parse_reference
from memory_core.anchors.states import CHANGED, CURRENT, MISSING, MOVED, AnchorState
from memory_core.ports.anchor_cache import AnchorCache, CachedFile, CachedTree
from memory_core.ports.code_files import CodeFiles, FileIdentity, StatCodeFiles
from memory_core.usecases.anchoring import anchor_now, region_of

if TYPE_CHECKING:
    from memory_core.entries.records import Entry
    from memory_core.session.deadline import Deadline
    from memory_core.usecases.retrieve import RankedEntry

_NO_IDENTITY = FileIdentity(0, 0, 0, 0)  # code files that cannot stat: nothing is cached for them
_UNREADABLE = object()  # there, but not readable (too big, not a regular file any more): judged by nobody


class AnchorReport(NamedTuple):
    """What one check found: the states of each checked entry, and how many entries time did not allow."""

    states: dict[str, list[AnchorState]]
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
            return AnchorReport({})
        stat = isinstance(self._files, StatCodeFiles)
        if stat:
            self._files.new_check(deadline)
        kept = self._cache.load(project_identity) if stat and self._cache else CachedTree()
        tree = _Tree(self._files, kept, stat)
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
            self._cache.save(project, tree.kept())


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
    """Today's files as one check sees them: each looked at once, read only when the cache cannot vouch for it;
    where a vanished file went asked of version control only when its state changed since the answer was kept."""

    def __init__(self, files: CodeFiles, kept: CachedTree, stat: bool) -> None:
        self._files = files
        self._stat = stat
        self.cached: dict[str, CachedFile] = dict(kept.files)
        self._vcs = files.vcs_token() if stat else None
        self._moves: dict[str, Optional[str]] = dict(kept.moves) if self._vcs and kept.vcs == self._vcs else {}
        self.dirty = bool(kept.moves) and not self._moves  # what version control said before no longer holds
        self._seen: dict[str, object] = {}  # path → CachedFile, None (absent) or _UNREADABLE
        self._content: dict[str, bytes] = {}

    def kept(self) -> CachedTree:
        """What this check leaves for the next: the files, and the moves while version control vouches for them."""
        vcs = self._files.vcs_token() if self._stat else None
        if not vcs or vcs != self._vcs:
            return CachedTree(self.cached)  # it changed (or failed) during the check: its answers are not kept
        return CachedTree(self.cached, vcs, self._moves)

    def _moved_to(self, path: str, anchor: Anchor) -> Optional[str]:
        key = f"{path}\0{anchor.blob}\0{anchor.commit}"
        if key in self._moves:
            known = self._moves[key]
            if known is None or self._files.identity(known) is not None:
                return known  # (a kept move whose target is gone meanwhile is asked again)
        moved_to = self._files.renamed_to(path, anchor.blob, anchor.commit)
        if self._vcs:
            self._moves[key] = moved_to
            self.dirty = True
        return moved_to

    def state(self, anchor: Anchor) -> Optional[AnchorState]:
        """How the anchor stands, or None when its file is there but cannot be judged."""
        path = parse_reference(anchor.reference).path
        known = self._look(path)
        if known is None:
            moved_to = self._moved_to(path, anchor)
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


def marks_of(report: AnchorReport) -> AnchorMarks:
    """The marks a check's report puts on what is shown."""
    found = {entry_id: line for entry_id, states in report.states.items() if (line := notes(states))}
    lowered = frozenset(entry_id for entry_id, states in report.states.items() if every_missing(states))
    return AnchorMarks(found, lowered, report.unchecked, checked=frozenset(report.states))


def lowered_last(selected: Sequence["RankedEntry"], marks: AnchorMarks) -> list["RankedEntry"]:
    """The selection with the entries citing only missing files after the others, scored below them (an index
    block picks its full entries by score), in their order; none left out."""
    if not marks.lowered:
        return list(selected)
    kept = [r for r in selected if r.entry.id not in marks.lowered]
    low = [r for r in selected if r.entry.id in marks.lowered]
    floor = min((r.score for r in kept), default=0.0)
    return kept + [replace(r, score=min(r.score, floor) - 1e-6 * (1 + i)) for i, r in enumerate(low)]


def check_before_use(check: Optional[CheckAnchors], entries: Sequence["Entry"], project_identity: Optional[str],
                     deadline: "Deadline", reserve_s: float, min_s: float = 0.02) -> AnchorMarks:
    """The marks of entries about to be shown: their citations of this project checked by `deadline` less
    `reserve_s` (left for rendering); skipped, and said so, when less than `min_s` would be left."""
    if check is None or not project_identity or not any(e.anchors for e in entries):
        return AnchorMarks()
    check_by = deadline.earlier(reserve_s)
    if not check_by.allows(min_s):
        return AnchorMarks(skipped=True)
    return marks_of(check.check(entries, project_identity, check_by))


def lowered_ids(ids: Sequence[str], marks: AnchorMarks) -> list[str]:
    """`ids` with those citing only missing files after the others (the order a hook picks its few from)."""
    return [i for i in ids if i not in marks.lowered] + [i for i in ids if i in marks.lowered]
