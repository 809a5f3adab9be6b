"""The hook entries `install-claude` plans for a scope's settings file, event by event (ADR 20, ADR 25).

One hook per event and session, whatever the order of installs: a personal install adds none beside the project's
or the user's, and takes out one it left there earlier; a project install takes the personal one out; a user-scope
hook stays quiet, when it runs, in a project whose own settings run it. Nothing is written here: the caller
applies the edits once every file has been read and checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from memory_apps.claude.events import HookEvent, hooks_phrase
from memory_apps.claude.settings import (defers_to_project, event_groups, hook_in_file, load_object,
                                       names_a_machine_path, our_hooks, remove_our_hook, save)


@dataclass
class FileEdit:
    """One file's planned change; written by `apply`."""

    path: str
    what: str
    data: dict[str, Any]
    original: Optional[str]
    changed: bool

    def apply(self) -> str:
        """Write the change (if any) and say truthfully what happened."""
        if not self.changed:
            return f"unchanged {self.path} ({self.what} already installed)"
        backup = save(self.path, self.data, self.original)
        verb = "created" if self.original is None else "updated"
        return f"{verb} {self.path} ({self.what}" + (f"; backup: {backup}" if backup else "") + ")"


def place_hook(groups: list, event: HookEvent, command: str) -> str:
    """Our hook for `event` in its list exactly once: added, or the earlier one refreshed in place (command,
    timeout, matcher; its other keys kept). Returns "added", "updated" or "unchanged"."""
    found = our_hooks(groups, event.name)
    if not found:
        matcher = {"matcher": event.matcher} if event.matcher else {}
        groups.append({**matcher, "hooks": [{"type": "command", "command": command, "timeout": event.timeout}]})
        return "added"
    before = json.dumps(groups, sort_keys=True)
    group, hook = found[0]
    remove_our_hook(groups, event.name, keep=hook)  # copies that a hand edit or an old tool left
    hook.update(type="command", command=command, timeout=event.timeout)
    if event.matcher and group.get("matcher") != event.matcher:
        _give_matcher(groups, group, hook, event.matcher)
    return "unchanged" if json.dumps(groups, sort_keys=True) == before else "updated"


def _give_matcher(groups: list, group: dict, hook: dict, matcher: str) -> None:
    """Put our hook under `matcher`: its own group's matcher changes; from a group shared with other hooks, whose
    matcher is theirs, it moves to a group of its own."""
    if all(other is hook for other in group["hooks"]):
        group["matcher"] = matcher
        return
    group["hooks"] = [other for other in group["hooks"] if other is not hook]
    groups.append({"matcher": matcher, "hooks": [hook]})


@dataclass
class _FilePlan:
    """One settings file being changed: its data, and what happens to each event's hook in it."""

    path: str
    data: dict[str, Any] = field(init=False)
    original: Optional[str] = field(init=False)
    placed: dict[str, list[HookEvent]] = field(default_factory=dict)  # "added" / "updated" / "unchanged"
    removed: dict[str, list[HookEvent]] = field(default_factory=dict)  # the file that runs them now

    def __post_init__(self) -> None:
        self.data, self.original = load_object(self.path)
        self._before = json.dumps(self.data, sort_keys=True)

    def place(self, event: HookEvent, command: str) -> None:
        """Add or refresh our hook for `event`."""
        status = place_hook(event_groups(self.data, event.name, self.path), event, command)
        self.placed.setdefault(status, []).append(event)

    def remove(self, event: HookEvent, runs_it_now: str) -> None:
        """Take our hook for `event` out, because `runs_it_now` runs it for the project."""
        groups = event_groups(self.data, event.name, self.path, create=False)
        remove_our_hook(groups or [], event.name)
        if groups == []:  # an event list that held only ours goes with it
            del self.data["hooks"][event.name]
        self.removed.setdefault(runs_it_now, []).append(event)

    def edit(self) -> Optional[FileEdit]:
        """The file's edit, or None when nothing was planned in it."""
        if not self.placed and not self.removed:
            return None
        changed = json.dumps(self.data, sort_keys=True) != self._before
        return FileEdit(self.path, self._what(), self.data, self.original, changed)

    def _what(self) -> str:
        added, updated, unchanged = (self.placed.get(status, []) for status in ("added", "updated", "unchanged"))
        if self.original is None:  # a new file: "created X (… hooks)"
            return hooks_phrase(added)
        parts = [f"{hooks_phrase(events)} {status}" for status, events in (("added", added), ("updated", updated))
                 if events]
        parts += [f"{hooks_phrase(events)} removed: {path} runs {'it' if len(events) == 1 else 'them'} now"
                  for path, events in self.removed.items()]
        if unchanged:
            parts.append(hooks_phrase(unchanged) + (" unchanged" if parts else ""))
        return ", ".join(parts)


@dataclass
class HookPlan:
    """What an install does to the hooks: file edits, status lines printed before them, notes after."""

    edits: list[FileEdit]
    lines: list[str]
    notes: list[str]


def plan_hooks(settings: str, others: tuple[str, ...], scope: str, events: tuple[HookEvent, ...],
               command: Callable[[HookEvent], str]) -> HookPlan:
    """The hook changes for `events` in `settings` (and a personal file a project install replaces), given the
    other settings files Claude Code reads for the project (`others[0]` is the project's other file)."""
    own, personal = _FilePlan(settings), None
    already: dict[str, list[HookEvent]] = {}  # local scope: the file that runs them, nothing added
    user_file: dict[tuple[str, bool], list[HookEvent]] = {}  # project scope: the user's hooks, and whether they defer
    project_file: dict[str, list[HookEvent]] = {}  # user scope: the project's own files
    notes: list[str] = []
    for event in events:
        present = our_hooks(event_groups(own.data, event.name, settings, create=False), event.name)
        elsewhere = [(path, found) for path in others if (found := hook_in_file(path, event.name))]
        if elsewhere and scope == "local":
            path, found = elsewhere[0]
            if path == others[0] and names_a_machine_path(found):  # the project's shared settings
                notes.append(f"note: {path} is shared but names a path on this machine; "
                             "`iflow-memory install-claude --scope project` makes it portable")
            if present:  # both, from before installs took care of it: the personal one goes
                own.remove(event, path)
            else:
                already.setdefault(path, []).append(event)
            continue
        own.place(event, command(event))
        for path, found in elsewhere:
            if scope == "project" and path == others[0]:  # the personal file: this install replaces it
                personal = personal or _FilePlan(path)
                personal.remove(event, settings)
            elif scope == "project":
                user_file.setdefault((path, defers_to_project(found)), []).append(event)
            else:
                project_file.setdefault(path, []).append(event)
    lines = [f"unchanged: the {hooks_phrase(found)} {'is' if len(found) == 1 else 'are'} already in {path} "
             f"(nothing added to {settings})" for path, found in already.items()]
    notes += _user_file_notes(user_file) + _project_file_notes(project_file)
    edits = [edit for plan in (own, personal) if plan and (edit := plan.edit())]
    return HookPlan(edits, lines, list(dict.fromkeys(notes)))


def _user_file_notes(found: dict[tuple[str, bool], list[HookEvent]]) -> list[str]:
    """A project install: the user's settings run the hooks for every project too."""
    notes = []
    for (path, defers), events in found.items():
        one = len(events) == 1
        notes.append(
            f"note: {path} also runs the {hooks_phrase(events)}, for all your projects; "
            f"{'it stays' if one else 'they stay'} quiet in this one, whose own settings run {'it' if one else 'them'}"
            if defers else
            f"note: {path} also runs the {hooks_phrase(events)}, from an older install that does not leave a "
            "project to its own hook; run `iflow-memory install-claude --scope user` again, or sessions here get "
            "the memory twice")
    return notes


def _project_file_notes(found: dict[str, list[HookEvent]]) -> list[str]:
    """A user install: this project's own files already run the hooks."""
    return [f"note: {path} already runs the {hooks_phrase(events)} for this project; the user-scope "
            f"{'hook stays' if len(events) == 1 else 'hooks stay'} quiet there, so its sessions get the memory once"
            for path, events in found.items()]
