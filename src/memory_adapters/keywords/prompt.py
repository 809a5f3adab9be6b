"""The keyword-extraction prompt (design C3) and parsing of a model's JSON-array answer."""

from __future__ import annotations

import json
import re

from memory_core.entries.keywords import GENERIC_WORD_LIST, MAX_KEYWORD_WORDS, MAX_KEYWORDS, MIN_KEYWORDS

PROMPT = f"""Extract {MIN_KEYWORDS}-{MAX_KEYWORDS} keyword labels from this knowledge bank entry.

Title: {{name}}
Content: {{description}}
Reasoning: {{reasoning}}
Category: {{category}}

Return ONLY a JSON array of lowercase keyword strings. Example: ["fts5", "sqlite", "content-hash", "parser-error"]

Rules:
- Use specific technical terms from the content (tool names, patterns, file types, techniques)
- 1-{MAX_KEYWORD_WORDS} words per keyword, lowercase, hyphenated if multi-word
- EXCLUDE these generic words: {', '.join(GENERIC_WORD_LIST)}
- Minimum {MIN_KEYWORDS}, maximum {MAX_KEYWORDS} keywords"""
"""The prompt template, its rules taken from the core's keyword validation (`memory_core.entries.keywords`)."""

_ARRAY = re.compile(r"\[.*?\]", re.DOTALL)


def build_prompt(name: str, description: str, reasoning: str, category: str) -> str:
    """Fill the prompt template."""
    return PROMPT.format(name=name, description=description, reasoning=reasoning or "-", category=category)


def parse_keywords(answer: str) -> list[str]:
    """The first JSON array of strings in the answer ([] when there is none)."""
    match = _ARRAY.search(answer or "")
    if not match:
        return []
    try:
        values = json.loads(match.group(0))
    except json.JSONDecodeError:
        return []
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
