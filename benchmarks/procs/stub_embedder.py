"""A stand-in for the bundled model in its pinned space: one fixed unit vector for every text, so the injector's
stored-vector path runs without onnxruntime or tokenizers."""

import random

from memory_apps.wiring.resolver import RecipeWiring


class StubLocalEmbedder:
    """Returns the same random unit vector (seeded) for every query and document."""

    provider_name, model_name, dimensions = "local", "all-MiniLM-L6-v2-int8", 384

    def __init__(self):
        rng = random.Random(3)
        raw = [rng.gauss(0, 1) for _ in range(384)]
        norm = sum(v * v for v in raw) ** 0.5
        self._vector = [v / norm for v in raw]

    def embed_query(self, text):
        """The fixed vector."""
        return list(self._vector)

    def embed_documents(self, texts):
        """The fixed vector, once per text."""
        return [list(self._vector) for _ in texts]


def install() -> None:
    """Make the hook's wiring build the stub wherever it would build an embedder (via its embedder_builder)."""
    RecipeWiring.overrides["embedder_builder"] = lambda provider, model: StubLocalEmbedder()
