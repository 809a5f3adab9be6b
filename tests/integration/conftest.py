"""Fixtures that several integration modules share (the plain helpers are in _helpers.py)."""

from __future__ import annotations

import pytest

from tests.integration._helpers import write_active_feature


@pytest.fixture
def credential_layout(tmp_path, isolated_home):
    """(HOME, project, global store) for the secrets and permissions tests: the project's active feature is about
    credential hygiene; HOME is isolated for the library calls made in this process too."""
    project = tmp_path / "proj"
    project.mkdir()
    write_active_feature(project, "001-secrets", "credential-hygiene",
                         "# Spec\n\nKeep credentials, tokens and passwords out of notes.\n")
    return isolated_home, project, tmp_path / "G"
