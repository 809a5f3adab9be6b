"""One validation, three doors: the CLI refuses exactly what the library (and so MCP) refuses, with the same
words, before it opens or creates any store."""

from __future__ import annotations

import pytest

from memory_apps.cli import main
from memory_apps.service import MemoryService
from memory_core.errors import InvalidEntry

CASES = [(["  "], 10, "query", "must not be empty"),
         (["csv"], 0, "limit", "must be at least 1"),
         (["csv"], -5, "limit", "must be at least 1"),
         (["csv"], 101, "limit", "must be at most 100")]


@pytest.mark.parametrize("words, limit, field, message", CASES)
def test_the_cli_and_the_library_refuse_the_same_search(tmp_path, capsys, isolated_home, words, limit, field,
                                                         message):
    store = tmp_path / "store"
    code = main(["search", *words, "--limit", str(limit), "--global-store", str(store),
                 "--project-root", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and f"invalid {field}: {message}" in err, err
    assert not store.exists(), "bad input is refused before any store is opened"

    service = MemoryService(global_store=str(tmp_path / "library-store"), project_root=str(tmp_path))
    with pytest.raises(InvalidEntry) as refused:
        service.search(" ".join(words), limit)
    assert (refused.value.field, refused.value.message) == (field, message)
