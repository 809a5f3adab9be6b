"""The model floor: load the bundled local model and embed one query.
Usage: model_floor.py QUERY [CACHE_DIR]  (with CACHE_DIR, the model's optimised copy kept there is used)."""

import sys

from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder


def main(query: str, cache_dir: str = "") -> None:
    """Embed `query` and print the vector's length."""
    embedder = LocalOnnxEmbedder(cache_dir=cache_dir) if cache_dir else LocalOnnxEmbedder()
    print(len(embedder.embed_query(query)))


if __name__ == "__main__":
    main(*sys.argv[1:3])
