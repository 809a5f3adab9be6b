"""Text drawn word by word from the repository's own prose (README and ADRs, with their word frequencies)."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from benchmarks.common.paths import ROOT

POOL = 256  # texts really embedded; every entry's vector is a noisy copy of one of them


def word_model() -> tuple[list[str], np.ndarray]:
    """The words of the repository's prose and their probabilities (a unigram model of real text)."""
    sources = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    words = Counter(w for path in sources if path.is_file()
                    for w in re.findall(r"[a-z][a-z'-]{1,20}", path.read_text(encoding="utf-8").lower()))
    vocab = sorted(words)
    counts = np.array([words[w] for w in vocab], dtype=np.float64)
    return vocab, counts / counts.sum()


class Prose:
    """Sentences of `n` words sampled from the word model."""

    def __init__(self, seed: int) -> None:
        self.vocab, self.p = word_model()
        self.rng = np.random.default_rng(seed)

    def words(self, low: int, high: int) -> list[str]:
        """Between `low` and `high` - 1 words."""
        return [self.vocab[i] for i in self.rng.choice(len(self.vocab), int(self.rng.integers(low, high)), p=self.p)]

    def text(self, low: int, high: int) -> str:
        """A sentence of `low` to `high` - 1 words."""
        return " ".join(self.words(low, high)).capitalize() + "."


def queries(count: int, seed: int) -> list[str]:
    """`count` distinct search queries of 5-14 words, the way an agent phrases a lookup."""
    prose = Prose(seed)
    return [" ".join(prose.words(5, 15)) for _ in range(count)]


def vector_pool(embedder) -> np.ndarray:
    """Real model embeddings of POOL entry-length texts."""
    prose = Prose(seed=POOL)
    return np.asarray(embedder.embed_documents([prose.text(40, 90) for _ in range(POOL)]), dtype=np.float64)
