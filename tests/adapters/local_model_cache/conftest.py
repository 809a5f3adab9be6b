"""Fixtures of the optimised-model cache tests: the plain load's embeddings and one entry built for the
package, of which each test that damages an entry gets a private copy. Importing `_helpers` skips the package
when the `local` extra or the bundled model is absent."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pytest

from memory_adapters.embedders import onnx_model_cache
from tests.adapters.local_model_cache._helpers import (
    FILES, SOURCE, LoadSpy, embed, identity, only_entry, trust_current_identities, wait_for_a_later_ctime,
)


@pytest.fixture
def builds(monkeypatch) -> list[str]:
    """Replaces building an entry (tested on its own) with a record of the request: the plain load runs."""
    requests: list[str] = []

    def fake_build(self, root_fd, source_fd, onnxruntime, options):
        requests.append(str(self._source))
        return None

    monkeypatch.setattr(onnx_model_cache.OptimisedModelCache, "_build", fake_build)
    return requests


@pytest.fixture(scope="package")
def reference() -> list[list[float]]:
    """Embeddings through today's plain load path."""
    return embed()


@pytest.fixture(scope="package")
def first_use(tmp_path_factory) -> tuple[Path, list[str], list[list[float]]]:
    """(cache directory, loads, embeddings) of the first use of an empty cache, once for the package."""
    cache_dir = tmp_path_factory.mktemp("built") / "cache"
    with pytest.MonkeyPatch.context() as monkeypatch:
        spy = LoadSpy(monkeypatch, SOURCE)
        vectors = embed(cache_dir=str(cache_dir))
    return cache_dir, spy.kinds, vectors


@pytest.fixture(scope="package")
def built(first_use) -> Path:
    """A cache directory holding one entry for the bundled model, built once for the package (read only)."""
    return first_use[0]


@pytest.fixture
def cache(built, tmp_path) -> Iterator[Path]:
    """A private copy of the built cache that a test may damage.

    The copy's files are new inodes, so their identities are recorded afresh (as the first load of a
    settled copy would), and the test starts after the clock has moved on, so that any write changes them.
    """
    copy = tmp_path / "cache"
    shutil.copytree(built, copy, symlinks=True)
    entry = only_entry(copy)
    trust_current_identities(entry)
    wait_for_a_later_ctime(tmp_path / "clock", max(identity(entry / name)[4] for name in FILES))
    yield copy
    shutil.rmtree(tmp_path, ignore_errors=True)  # before its 90 MB reach the disk: keeps the suite fast
