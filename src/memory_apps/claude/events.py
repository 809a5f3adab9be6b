"""The Claude Code hook events iflow-memory answers, as `install-claude` writes them (ADR 25).

On the hooks' own path (a user-scope hook asks whether the project runs it), so it imports nothing heavy.
"""

from __future__ import annotations

from typing import NamedTuple, Optional


class HookEvent(NamedTuple):
    """One hook event: its key under `hooks` in settings, our sub-command, its matcher and timeout."""

    name: str
    command: str
    matcher: Optional[str]
    timeout: int
    summary: str


# The timeouts are Claude Code's limit, a safety net around the hook's own, shorter, deadline: a prompt or a file
# tool waits for its hook, so those two get less room than the session start.
EVENTS = (
    HookEvent("SessionStart", "session-start", None, 5,
              "the project's memory block when a session starts"),
    HookEvent("UserPromptSubmit", "user-prompt-submit", None, 3,
              "at most 3 learnings relevant to each prompt, or nothing"),
    HookEvent("PreToolUse", "pre-tool-use", "Read|Edit|MultiEdit|Write", 3,
              "at most 2 learnings that cite the file about to be used, or nothing"),
)
BY_NAME = {event.name: event for event in EVENTS}
BY_COMMAND = {event.command: event for event in EVENTS}


def parse_events(text: str) -> tuple[HookEvent, ...]:
    """The events a comma-separated list of sub-command names chooses, in EVENTS order; ValueError on an
    unknown or empty name."""
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in BY_COMMAND]
    if unknown:
        shown = ", ".join(repr(name) for name in unknown)
        raise ValueError(f"unknown event {shown}; choose from {', '.join(BY_COMMAND)} (comma-separated)")
    return tuple(event for event in EVENTS if event.command in names)


def joined(names: list[str]) -> str:
    """`A`, `A and B`, `A, B and C`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def hooks_phrase(events: list[HookEvent]) -> str:
    """`SessionStart hook` or `SessionStart and PreToolUse hooks`."""
    return joined([event.name for event in events]) + (" hook" if len(events) == 1 else " hooks")
