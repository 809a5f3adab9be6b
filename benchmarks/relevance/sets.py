"""The relevance sets: entries to store and queries with graded judgements, each set of a different character."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Optional

from benchmarks.common.paths import BANK_HEAD, DATA
from memory_core.entries.models import EntryDraft

PARAPHRASE = DATA / "semantic_vs_keyword.json"
SESSIONS = DATA / "relevance_sessions.json"
PROMPTS = DATA / "relevance_prompts.json"
FEATURE_REF = re.compile(r"\bfeatures?\s*[#/]?\s*0*(\d{1,3})\b", re.IGNORECASE)
MIN_FEATURE_ENTRIES = 4
NAMES_IN_CONTEXT = 3


@dataclass(frozen=True)
class Session:
    """What the injector knows at a session start (or, with only `text`, an explicit search)."""

    feature_slug: Optional[str] = None
    spec_paragraph: Optional[str] = None
    phase: Optional[str] = None
    changed_files: tuple[str, ...] = ()
    text: Optional[str] = None
    """A plain query (names-only contexts, search): used as the feature text with no slug."""


@dataclass
class Query:
    """One session and the entries (by key) that matter for it, graded 1 (related) or 2 (directly useful)."""

    key: str
    session: Session
    relevant: dict[str, int]
    hidden: frozenset[str] = frozenset()
    """Entries left out of the ranking for this query (leave-one-out: the entries the query was built from)."""


@dataclass
class RelevanceSet:
    """A named corpus with its queries."""

    name: str
    about: str
    drafts: dict[str, EntryDraft]
    queries: list[Query] = field(default_factory=list)
    observed: dict[str, datetime] = field(default_factory=dict)
    """When an entry was last observed, where the source says."""
    imported: bool = False
    """Entries the source dates nowhere were imported now (the real bank); else ages are spread by position."""
    unanswerable: list[Query] = field(default_factory=list)
    """Queries nothing in the set answers: left out of the metrics, measured for a relevance floor."""


def _draft(item: dict, source: str = "retro") -> EntryDraft:
    return EntryDraft(name=item["name"], description=item["description"], reasoning=item.get("reasoning", ""),
                      category=item["category"], references=item.get("references", []),
                      observation_count=item.get("observation_count", 1),
                      confidence=item.get("confidence", "medium"), source=source)


def _bank_entries():
    from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader
    from memory_core.ranking.legacy import deduplicate

    return deduplicate(MarkdownKnowledgeBankReader(warn_unknown=False).read(str(BANK_HEAD), "local"))


def _feature_groups(entries) -> dict[int, list]:
    """Entries grouped by the feature numbers their metadata lines (`- Used in: Feature #033`) mention."""
    groups: dict[int, list] = {}
    for entry in entries:
        metadata = [ln for ln in entry.raw_text.splitlines()[1:] if ln.startswith("- ")]
        for number in {int(m) for ln in metadata for m in FEATURE_REF.findall(ln)}:
            groups.setdefault(number, []).append(entry)
    return {n: g for n, g in groups.items() if len(g) >= MIN_FEATURE_ENTRIES}


def real_bank_sets() -> list[RelevanceSet]:
    """The real knowledge bank (head), with feature provenance as relevance: leave-one-out and names-only."""
    if not BANK_HEAD.is_dir():
        return []
    entries = _bank_entries()
    drafts = {e.entry_id: e.to_draft("knowledge-bank") for e in entries}
    groups = _feature_groups(entries)
    observed = {e.entry_id: e.last_observed for e in entries if e.last_observed is not None}
    loo = RelevanceSet("bank-loo", "real bank (head): query = names of a feature's other entries; the held-out "
                       "entry must rank high (the other entries are hidden)", drafts,
                       observed=observed, imported=True)
    names = RelevanceSet("bank-names", f"real bank (head): query = names of a feature's first "
                         f"{NAMES_IN_CONTEXT} entries; relevant = the feature's other entries", drafts,
                         observed=observed, imported=True)
    for number, group in sorted(groups.items()):
        ids = [e.entry_id for e in group]
        for held in group:
            others = [e for e in group if e is not held]
            loo.queries.append(Query(f"f{number:03d}-{held.entry_id[:8]}",
                                     Session(text="; ".join(e.name for e in others)),
                                     {held.entry_id: 2}, frozenset(e.entry_id for e in others)))
        seeds = group[:NAMES_IN_CONTEXT]
        names.queries.append(Query(f"f{number:03d}", Session(text="; ".join(e.name for e in seeds)),
                                   {i: 2 for i in ids[NAMES_IN_CONTEXT:]},
                                   frozenset(e.entry_id for e in seeds)))
    return [loo, names]


def paraphrase_set() -> RelevanceSet:
    """Four session contexts, 12 entries each that share no word with their context, 12 distractors."""
    data = json.loads(PARAPHRASE.read_text(encoding="utf-8"))
    drafts = {f"p{i:03d}": _draft(item) for i, item in enumerate(data["entries"])}
    topics = {key: data["entries"][i]["topic"] for i, key in enumerate(drafts)}
    result = RelevanceSet("paraphrase", "hand-written: relevant entries share no word with the session", drafts)
    for context in data["contexts"]:
        session = Session(feature_slug=context["slug"], spec_paragraph=context["description"], phase=context["phase"])
        relevant = {k: 2 for k, topic in topics.items() if topic == context["topic"]}
        result.queries.append(Query(context["slug"], session, relevant))
    return result


def ac1_sets() -> list[RelevanceSet]:
    """Spec AC1: 50 entries (20 parser, 20 deployment, 10 testing); plain wording and synonyms-only wording."""
    from benchmarks.common import parser_banks as data

    sets = []
    for variant, bank in data.BANKS.items():
        drafts = {f"a{i:03d}": _draft({"category": c, "name": n, "description": d})
                  for i, (c, n, d) in enumerate(bank)}
        parser = data.PARSER_NAMES[variant]
        relevant = {k: 2 for k, d in drafts.items() if d.name in parser}
        session = Session(feature_slug=data.SLUG, spec_paragraph=data.CONTEXT, phase="design")
        sets.append(RelevanceSet(f"ac1-{variant}", f"spec AC1 ({variant} wording): 20 parser entries of 50",
                                 drafts, [Query("parser", session, relevant)]))
    return sets


def sessions_set(path: Path = SESSIONS) -> Optional[RelevanceSet]:
    """Session-like contexts (slug, spec paragraph, phase, changed files) over ~200 learnings of ~10 topics."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    drafts = {item["id"]: _draft(item) for item in data["entries"]}
    result = RelevanceSet("sessions", "written for this suite: session contexts as the injector composes them",
                          drafts)
    for item in data["sessions"]:
        session = Session(feature_slug=item["feature_slug"], spec_paragraph=item["spec_paragraph"],
                          phase=item.get("phase") or None, changed_files=tuple(item.get("changed_files", ())))
        result.queries.append(Query(item["id"], session, dict(item["relevant"])))
    return result


def prompt_problems(data: dict, entry_ids: set[str]) -> list[str]:
    """What is wrong with a prompt set's judgements: dangling entry ids, bad grades, prompts neither judged
    nor marked unanswerable (or both), repeated prompt ids."""
    problems, seen = [], set()
    for item in data["prompts"]:
        key, judged = item.get("id"), item.get("relevant", [])
        if key in seen:
            problems.append(f"{key}: the id is used twice")
        seen.add(key)
        if bool(judged) == bool(item.get("unanswerable")):
            problems.append(f"{key}: neither judged nor marked unanswerable" if not judged
                            else f"{key}: judged and marked unanswerable")
        for row in judged:
            if row["entry"] not in entry_ids:
                problems.append(f"{key}: {row['entry']} ({row.get('name', '?')}) is not in the bank")
            if row.get("grade") not in (1, 2):
                problems.append(f"{key}: grade {row.get('grade')!r} for {row['entry']} (1 or 2)")
    return problems


def prompts_set(path: Path = PROMPTS) -> Optional[RelevanceSet]:
    """Prompts a developer types, over the real bank (head); prompts nothing answers kept apart for the floor."""
    if not BANK_HEAD.is_dir() or not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    entries = _bank_entries()
    problems = prompt_problems(data, {e.entry_id for e in entries})
    if problems:
        raise ValueError(f"{path.name}: " + "; ".join(problems))
    result = RelevanceSet("prompts", "written for issue 23: prompts typed to Claude Code, graded against the real "
                          "bank (head); metrics over the answerable ones",
                          {e.entry_id: e.to_draft("knowledge-bank") for e in entries},
                          observed={e.entry_id: e.last_observed for e in entries if e.last_observed is not None},
                          imported=True)
    for item in data["prompts"]:
        judged = {row["entry"]: row["grade"] for row in item.get("relevant", [])}
        query = Query(item["id"], Session(text=item["prompt"]), judged)
        (result.unanswerable if item.get("unanswerable") else result.queries).append(query)
    return result


def all_sets(only: Optional[set[str]] = None) -> list[RelevanceSet]:
    """Every set that can be built here (the real bank needs ../shared beside the project)."""
    found = real_bank_sets() + [paraphrase_set()] + ac1_sets()
    found += [extra for extra in (sessions_set(), prompts_set()) if extra is not None]
    return [s for s in found if only is None or s.name in only]


def sets_or_usage_error(parser, names: Optional[str]) -> list[RelevanceSet]:
    """The sets `--sets` names; a usage error naming the sets here when it names none of them."""
    sets, unknown = chosen_sets(names)
    if unknown or not sets:
        parser.error(f"--sets: no set named {', '.join(unknown) or repr(names)} here; the sets: "
                     f"{', '.join(s.name for s in all_sets())}")
    return sets


def chosen_sets(names: Optional[str]) -> tuple[list[RelevanceSet], list[str]]:
    """The sets a comma-separated `--sets` value names (all when empty), and the names no set here has."""
    only = {n.strip() for n in names.split(",") if n.strip()} if names else None
    found = all_sets(only)
    return found, sorted((only or set()) - {s.name for s in found})
