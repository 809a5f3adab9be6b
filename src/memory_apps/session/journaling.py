"""What the hooks append to the injection journal (ADR 27): one record per answer, best-effort.

`shown_memory` maps what each path has in hand onto the journal's signals, honestly: a signal the path did not
compute is left out rather than written as 0. `journal_injection` appends and swallows any failure with one
stderr line: a hook never fails, waits or prints anything else because of the journal.
"""

from __future__ import annotations

import os
import sys
from datetime import datetime, timezone
from typing import Mapping, Optional, Sequence

from memory_core.ranking.absolute_relevance import KEYWORD_MATCH
from memory_core.ranking.relevance_signals import COSINE, WORD_SHARE
from memory_core.ranking.selection_signals import PROMINENCE, REFERENCE_MATCH
from memory_core.session.journal import ALREADY_SHOWN, CURRENT, InjectionRecord, ShownMemory

TRIGGER_CHARS = 200


def _unit(value: float) -> float:
    return min(max(float(value), 0.0), 1.0)


def journal_signals(raw: Mapping[str, float], vector_ran: bool = False, reference: Optional[float] = None,
                    prominence: Optional[float] = None) -> dict[str, float]:
    """The journal's signals from a path's raw ones (`relevance_signals` names): meaning = the cosine clipped to
    0-1 (only when the vector signal ran: otherwise the 0 there was never computed), keywords = the share of the
    query's words the entry holds (or matched/not on a keyword scale without BM25), references = the reference
    match, prominence = the prominence component (given, or in `raw` from `selection_signals`); each present only
    where it was computed."""
    reference = raw.get(REFERENCE_MATCH) if reference is None else reference
    prominence = raw.get(PROMINENCE) if prominence is None else prominence
    signals: dict[str, float] = {}
    if vector_ran and COSINE in raw:
        signals["meaning"] = _unit(raw[COSINE])
    if WORD_SHARE in raw:
        signals["keywords"] = _unit(raw[WORD_SHARE])
    elif KEYWORD_MATCH in raw:
        signals["keywords"] = _unit(raw[KEYWORD_MATCH])
    if reference is not None:
        signals["references"] = _unit(reference)
    if prominence is not None:
        signals["prominence"] = _unit(prominence)
    return signals


def shown_memory(entry, score: float = 0.0, relevance: Optional[float] = None,
                 signals: Optional[Mapping[str, float]] = None, mark: str = "") -> ShownMemory:
    """One shown entry as the journal keeps it (`signals` from `journal_signals`)."""
    return ShownMemory(entry.id, entry.name, entry.category, float(score),
                       None if relevance is None else float(relevance), dict(signals or {}), mark)


def code_mark(marks, entry_id: str) -> str:
    """What the journal keeps of the code check of a shown entry: its note, CURRENT when its citations were
    checked and all are current, '' when they were not checked."""
    return marks.note(entry_id) or (CURRENT if entry_id in getattr(marks, "checked", ()) else "")


def nothing_shown(diagnostic: str, already: int, otherwise: str) -> str:
    """The diagnostic a hook that showed nothing records: its line with why (`already` of what it calls for
    was shown earlier in the session, or `otherwise`)."""
    reason = f"{ALREADY_SHOWN}: {already}" if already else otherwise
    return f"{diagnostic.rstrip('*')} | {reason}*"


def prompt_trigger(prompt: str) -> str:
    """What the journal keeps of a prompt: redacted first (a secret is never cut in half), then cut short."""
    from memory_core.safety.redaction import redact_secrets

    return redact_secrets(prompt.strip()[:TRIGGER_CHARS * 10])[:TRIGGER_CHARS]


def diagnostic_of(block: str) -> str:
    """The diagnostic line a block printed ('' when it printed none): its line that starts `*Memory:`."""
    return next((line for line in block.splitlines() if line.startswith("*Memory:")), "")


def journal_injection(journal, hook: str, project: str, diagnostic: str, shown: Sequence[ShownMemory],
                      session_id: str = "", trigger: str = "", at: Optional[datetime] = None) -> None:
    """Append one record; never raises (a failure is one line on stderr)."""
    try:
        journal.append(InjectionRecord(at or datetime.now(timezone.utc), hook, project, diagnostic, tuple(shown),
                                       session_id, trigger))
    except Exception as exc:  # noqa: BLE001 - the journal is for the viewer; the hook's answer comes first
        print(f"iflow-memory: injection journal not updated: {exc}", file=sys.stderr)


def journal_of(wiring):
    """The wiring's journal, or one whose append raises why it could not be built."""
    try:
        return wiring.injection_journal()
    except Exception as exc:  # noqa: BLE001 - journal_injection reports it
        return _Unavailable(exc)


class _Unavailable:
    """A journal that could not be built: appending raises why."""

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    def append(self, record) -> None:
        """Raise why there is no journal."""
        raise self.exc


def project_of(project_root: str) -> str:
    """The project's name in the journal: the base name of its root."""
    return os.path.basename(os.path.abspath(project_root))


def journal_prompt(wiring, project_root: str, event: dict, session: Optional[str], recall, ids: Sequence[str],
                   marks, diagnostic: str) -> None:
    """The prompt hook's record: each shown learning's signals (a cited file's match, or the search's signals
    and the hook's relevance); none shown is a record too."""
    cited = {m.entry.id: m for m in recall.cited}
    ranked = {r.entry.id: r for r in recall.shown}
    shown = []
    for i in ids:
        if i in cited:
            match = cited[i].match
            shown.append(shown_memory(cited[i].entry, match, None, journal_signals({}, reference=match),
                                      code_mark(marks, i)))
        elif i in ranked:
            r = ranked[i]
            shown.append(shown_memory(r.entry, r.score, r.relevance, journal_signals(r.signals, recall.vector.ran),
                                      code_mark(marks, i)))
    journal_injection(journal_of(wiring), "prompt", project_of(project_root), diagnostic, shown, session or "",
                      prompt_trigger(str(event.get("prompt") or "")))


def journal_file(wiring, project_root: str, session: Optional[str], path: str, matches, marks,
                 diagnostic: str) -> None:
    """The file hook's record: each shown learning with how closely it cites the file (its reference signal)."""
    shown = [shown_memory(m.entry, m.match, None, journal_signals({}, reference=m.match), code_mark(marks, m.entry.id))
             for m in matches]
    journal_injection(journal_of(wiring), "file", project_of(project_root), diagnostic, shown, session or "", path)
