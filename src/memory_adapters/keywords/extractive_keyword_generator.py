"""LocalExtractiveKeywordGenerator: keywords picked from the entry's own words, no model, no network.

Candidates are the entry's identifiers and file names (`busy_timeout` -> busy-timeout, `ValueError` ->
valueerror, `common.sh` -> common-sh), its hyphenated terms, and phrases of up to three words between function
words and punctuation (tokenizer file -> tokenizer-file). Each scores by where it occurs (the title weighs most)
and how specific it looks (identifiers, acronyms, digits, long words); stopwords and the spec's generic words
never stand alone (`keyword_stopwords`). Written here rather than taken from a package: the maintained extractor
on offer (yake) imports in ~330 ms with numpy and networkx, rake-nltk needs NLTK data downloads. Measured on a
2-core machine under load: this module and its stopwords add ~4 ms to an import; the 265-entry knowledge bank
takes ~55 ms CPU from cold caches (~30 ms warm), ~75 ms through TieredKeywords with its secret and AC5 checks.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator, NamedTuple, Optional

from memory_adapters.keywords.stopwords import COMMON_MODIFIERS, COMMON_VERBS, FUNCTION_WORDS, \
    IRREGULAR_VERB_FORMS, is_stopword
from memory_core.policies.keyword_tiers import grounded, stem
from memory_core.entries.keywords import MAX_KEYWORD_WORDS, MAX_KEYWORDS, MIN_KEYWORDS

FIELD_WEIGHTS = (3.0, 1.0, 0.6)
"""Title, description, reasoning."""
CUTOFF = 0.2
"""Past the third label, a candidate scoring under this share of the best one is left out."""
PHRASE_BONUS = 0.25
"""A phrase's words' mean specificity grows by this much per extra word (tokenizer file > tokenizer)."""
STOPWORD_IN_PHRASE = 0.8
"""A vague word's weight inside a phrase (content hash, type annotation), where it is no longer vague."""
REPLACE_SHARE = 0.6
"""A phrase scoring at least this share of a chosen word it contains replaces that word."""

_FILE_EXTENSIONS = ("py|pyi|md|sh|bash|zsh|json|jsonl|ya?ml|toml|ini|cfg|conf|txt|csv|sql|js|mjs|ts|tsx|jsx|go|rs"
                    "|rb|java|kt|c|h|cpp|hpp|cs|html|css|lock|env|db|sqlite")
_CHUNK = re.compile(r"([A-Za-z0-9_](?:[\w./'-]*[A-Za-z0-9_])?)|[^\sA-Za-z0-9_]+")
"""A word-shaped chunk (word, snake_case, camelCase, hyphen-joined, dotted, file name, path), or punctuation."""
_FILE = re.compile(rf"[\w.-]+\.(?:{_FILE_EXTENSIONS})")
_BULLET_LABEL = re.compile(r"(?m)^[ \t]*[-*][ \t]*[A-Z][A-Za-z ]{0,24}:")
"""A bullet's label (`- Observed in:`): the format's, not the entry's words."""
_URL = re.compile(r"\b(?:https?://|www\.)\S+")
_DOMAIN = re.compile(r"[\w.-]+\.(?:com|org|io|net|dev|ai)")
_NUMBERED = re.compile(r"[a-z]{4,}-[0-9]{1,2}")
_CAMEL = re.compile(r"[a-z][A-Z]")
_ACRONYM = re.compile(r"[A-Z][A-Z0-9]{1,4}s?")
_VERB_STEMS = frozenset(stem(w) for w in COMMON_VERBS | IRREGULAR_VERB_FORMS)
_STOP_START = _VERB_STEMS | frozenset(stem(w) for w in COMMON_MODIFIERS)


class _Token(NamedTuple):
    """One word or identifier of the text, classified once (words repeat across a bank)."""

    parts: tuple[str, ...]
    stems: tuple[str, ...]
    specificity: float
    """How specific the term looks alone; 0 for a stopword, which counts STOPWORD_IN_PHRASE inside a phrase."""
    opens: bool = True
    """May start a phrase (not a verb or modifier: "use tokenizer", "explicit checks")."""
    closes: bool = True
    """May end a phrase (not a modifier: "worktree wrong")."""
    extends: bool = True
    """A phrase may go on past it (not past a verb: "parser reports line")."""


class _Candidate(NamedTuple):
    label: str
    stems: frozenset[str]
    tokens: int
    score: float
    seen_in_body: bool
    """Seen in the description or reasoning, so grounded in them (spec 001 AC5); a title-only term may not be."""


def _term(parts: tuple[str, ...], specificity: float, alone: bool = False) -> _Token:
    """A label-shaped token; `alone`: an identifier, a label by itself and never part of a phrase."""
    return _Token(parts, tuple(stem(p) for p in parts), specificity, not alone, not alone, not alone)


def _ends_loosely(word: str) -> bool:
    """A compound ending in a function word, modifier or adverb (text-only, budget-heavily) is a clause."""
    return word in FUNCTION_WORDS or word in COMMON_MODIFIERS or (word.endswith("ly") and is_stopword(word))


@lru_cache(maxsize=8192)
def _word(text: str) -> Optional[_Token]:
    """Classify one word-shaped match; None for what breaks a phrase (function words, numbers, apostrophes)."""
    if "'" in text or text.isdigit():
        return None
    lowered = text.lower()
    if "_" in text:
        parts = tuple(p for p in re.split(r"[_-]+", lowered) if p)
        if len(parts) == 1:
            return _word(parts[0])  # _conn, __init__: a plain word behind the underscores
        return _term(parts, 2.5, alone=True) if len(parts) <= MAX_KEYWORD_WORDS else None
    if "-" in text:
        parts = tuple(lowered.split("-"))
        content = sum(p.isalpha() and not is_stopword(p) for p in parts)
        if not content or not parts[0][0].isalpha() or len(parts) > MAX_KEYWORD_WORDS or _NUMBERED.fullmatch(lowered) \
                or _ends_loosely(parts[-1]):
            return None  # 4-5, 20-minute, iter-1, end-to-end-test, text-only, runs-cleanly: no term
        return _term(parts, 1.0 + 0.3 * content)
    if not text.islower() and _CAMEL.search(text):
        return _term((lowered,), 2.5, alone=True)  # ValueError -> valueerror, as a full-text search splits it
    if lowered in FUNCTION_WORDS:
        return None
    stemmed = stem(lowered)
    if is_stopword(lowered):
        if stemmed in _VERB_STEMS and lowered not in COMMON_VERBS:
            if lowered.endswith("s"):  # "health checks" (a noun), "parser reports line" (a verb): end there
                return _Token((lowered,), (stemmed,), 0.0, False, True, False)
            return None  # "task required", "made": a verb's past or gerund ends a term
        modifier = lowered in COMMON_MODIFIERS or lowered.endswith("ly")  # an adverb: never at a term's edge
        return _Token((lowered,), (stemmed,), 0.0, stemmed not in _STOP_START and not modifier, not modifier)
    letters = len(lowered) if lowered.isalpha() else sum(c.isalpha() for c in lowered)
    if text[0].isupper() and _ACRONYM.fullmatch(text) and letters >= 2:
        return _term((lowered,), 1.6 if len(text) > 2 else 1.0)  # TDD, WAL, FTS5; CI, DB
    if len(lowered) < 3 or letters < 2 or not lowered[0].isalpha():
        return _Token((lowered,), (stemmed,), 0.0, False, True)  # T02, i1: item numbers
    specificity = 1.0 + (0.0 if letters == len(lowered) else 0.5) + (0.3 if len(lowered) >= 8 else 0.0)
    if lowered.endswith("ing") and len(lowered) > 5:
        # A gerund is a fine label (parsing, caching) but seldom opens a term: "restoring modified hook files".
        return _Token((lowered,), (stemmed,), specificity - 0.2, False, True)
    if lowered.endswith("ed") and len(lowered) > 5:
        return _Token((lowered,), (stemmed,), specificity - 0.3)  # answered, patched: weak alone; deferred task
    return _Token((lowered,), (stemmed,), specificity)


@lru_cache(maxsize=8192)
def _chunk(chunk: str) -> tuple[Optional[_Token], ...]:
    """The tokens of a chunk with a dot or slash; None ends a phrase. Files and dotted names stand alone:
    hooks/lib/common.sh -> common-sh, keyword_tiers.py -> keyword-tiers-py, sqlite3.Connection.backup -> one
    label when it has at most three parts, else each piece on its own; if/else, LLM/user -> separate words."""
    if "/" in chunk:
        segments = [s for s in chunk.split("/") if s]
        if segments and "." in segments[-1] and _FILE.fullmatch(segments[-1]):
            return _chunk(segments[-1])  # a file's directories say little: hooks/lib/common.sh -> common-sh
        return tuple(t for s in segments for t in ((None, _word(s), None) if "." not in s else _chunk(s)))
    if _DOMAIN.fullmatch(chunk):
        return (None,)
    if _FILE.fullmatch(chunk):
        base, _, extension = chunk.rpartition(".")
        parts = tuple(p for p in re.split(r"[._-]+", base.lower()) if p)
        parts += (extension.lower(),) if len(parts) == 1 else ()
        return (None, _term(parts, 3.0), None) if len(parts) <= MAX_KEYWORD_WORDS else (None,)
    pieces = [p for p in re.split(r"[._]+", chunk) if p]
    if len(pieces) <= MAX_KEYWORD_WORDS and len(chunk) <= 30 and min(len(p) for p in pieces) > 1 and "-" not in chunk:
        return (None, _term(tuple(p.lower() for p in pieces), 2.5), None)
    tokens = [t for t in map(_word, (p for p in pieces if len(p) > 1)) if t is not None and t.specificity]
    return (None, *(x for t in tokens for x in (t, None)))


def _runs(text: str) -> list[list[_Token]]:
    """The text's tokens, in runs that function words and punctuation break."""
    runs: list[list[_Token]] = []
    run: list[_Token] = []
    text = _BULLET_LABEL.sub(" ; ", text)
    if "://" in text or "www." in text:
        text = _URL.sub(" ; ", text)
    for chunk in _CHUNK.findall(text):
        if not chunk:
            tokens: tuple[Optional[_Token], ...] = (None,)  # punctuation
        elif "." in chunk or "/" in chunk:
            tokens = _chunk(chunk)
        else:
            tokens = (_word(chunk),)
        for token in tokens:
            if token is not None:
                run.append(token)
            elif run:
                runs.append(run)
                run = []
    if run:
        runs.append(run)
    return runs


class LocalExtractiveKeywordGenerator:
    """Implements KeywordGenerator: specific terms, identifiers and short phrases of the entry, title first."""

    def generate(self, name: str, description: str, reasoning: str, category: str) -> list[str]:
        """Return up to 10 lowercase keywords taken from the entry, 3 of them from its description or reasoning
        whenever it has that many candidates."""
        ranked = _ranked(name, description, reasoning)
        return _ensure_grounded(_select(ranked), ranked, f"{description}\n{reasoning}")


def _ranked(name: str, description: str, reasoning: str) -> _Ranking:
    """Every candidate term with its score, best first (ties: the earlier one). Variants (reviewer, reviewers)
    count as one term, under their first spelling."""
    tally: dict[tuple[str, ...], list] = {}  # stems -> [score, times seen, run, start, end, in the body]
    for weight, text in zip(FIELD_WEIGHTS, (name, description, reasoning)):
        seen = 2 if weight == FIELD_WEIGHTS[0] else 1  # a title phrase counts as repeated; a body one is grounded
        for run in _runs(text):
            for i, first in enumerate(run):
                if first.specificity:
                    _count(tally, first.stems, weight * first.specificity, seen, run, i, i + 1)
                if not first.opens:
                    continue
                key, size = first.stems, len(first.parts)
                total, content = first.specificity or STOPWORD_IN_PHRASE, first.specificity > 0
                for j in range(i + 1, min(i + 3, len(run))):  # the phrase run[i:j + 1]
                    token = run[j]
                    key, size = key + token.stems, size + len(token.parts)
                    total, content = total + (token.specificity or STOPWORD_IN_PHRASE), content or token.specificity > 0
                    if size > MAX_KEYWORD_WORDS:
                        break
                    if token.closes and content:
                        score = weight * total / (j - i + 1) * (1 + PHRASE_BONUS * (j - i))
                        _count(tally, key, score, seen, run, i, j + 1)
                    if not token.extends:
                        break
    # A three-word phrase seen once in the body is usually a clause fragment, not a term.
    return _Ranking(sorted((-entry[0], order, key, entry) for order, (key, entry) in enumerate(tally.items())
                           if entry[4] - entry[3] < 3 or entry[1] >= 2))


def _count(tally: dict[tuple[str, ...], list], key: tuple[str, ...], score: float, seen: int,
           run: list[_Token], start: int, end: int) -> None:
    """Add one occurrence of the term run[start:end]."""
    entry = tally.get(key)
    if entry is None:
        tally[key] = [score, seen, run, start, end, seen == 1]
    else:
        entry[0] += score
        entry[1] += seen
        entry[5] = entry[5] or seen == 1


class _Ranking:
    """Candidates best first, each built when first read (selection reads only the first few)."""

    def __init__(self, raw: list[tuple]) -> None:
        self._raw, self._built = raw, []

    def __iter__(self) -> Iterator[_Candidate]:
        for index, (_, _, key, (score, _, run, start, end, body)) in enumerate(self._raw):
            if index == len(self._built):
                label = "-".join(p for t in run[start:end] for p in t.parts)
                self._built.append(_Candidate(label, frozenset(key), end - start, score, body))
            yield self._built[index]


def _select(ranked: _Ranking) -> list[_Candidate]:
    """Best first, no two labels sharing a word; a phrase nearly as strong as a chosen word takes its place."""
    chosen: list[_Candidate] = []
    top = 0.0
    for candidate in ranked:
        top = top or candidate.score
        if len(chosen) >= MIN_KEYWORDS and candidate.score < CUTOFF * top:
            break
        overlapping = [c for c in chosen if c.stems & candidate.stems]
        if not overlapping:
            chosen.append(candidate)
        elif len(overlapping) == 1 and overlapping[0].tokens == 1 and overlapping[0].stems < candidate.stems \
                and candidate.score >= REPLACE_SHARE * overlapping[0].score:
            chosen[chosen.index(overlapping[0])] = candidate
        if len(chosen) == MAX_KEYWORDS:
            break
    return chosen


def _ensure_grounded(chosen: list[_Candidate], ranked: _Ranking, text: str) -> list[str]:
    """Spec 001 AC5 counts labels found in the description or reasoning: make sure three of them are, adding the
    best grounded terms (first ones sharing no word with a chosen label, then ones that share a word only with a
    title-only label) in place of the weakest title-only labels when ten are already chosen."""
    kept = [(c, c.seen_in_body or grounded(c.label, text)) for c in chosen]
    for allow_overlap in (False, True):
        for candidate in ranked:
            if sum(is_grounded for _, is_grounded in kept) >= MIN_KEYWORDS:
                return [c.label for c, _ in kept]
            clashes = [is_grounded for c, is_grounded in kept if c.stems & candidate.stems]
            if (clashes and not allow_overlap) or any(clashes) or candidate in (c for c, _ in kept) \
                    or not (candidate.seen_in_body or grounded(candidate.label, text)):
                continue
            if len(kept) == MAX_KEYWORDS:
                kept.pop(max(i for i, (_, is_grounded) in enumerate(kept) if not is_grounded))
            kept.append((candidate, True))
    return [c.label for c, _ in kept]
