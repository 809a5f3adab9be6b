"""A viewer over a real MemoryService on a temporary SQLite store (no embedder: keyword search only), driven
through Starlette's TestClient as the browser the launch URL opened."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests._helpers import write_settings

pytest.importorskip("starlette", reason="the viewer needs the ui extra: pip install 'iflow-memory[ui]'")

PORT = 8765
ORIGIN = f"http://127.0.0.1:{PORT}"


@dataclass
class Viewer:
    """The test client (its cookie set), the launch options and the service behind it."""

    client: object
    options: object
    service: object

    def post(self, path: str, data: dict | None = None, **headers: str):
        """A form POST as the page sends it: the CSRF token and this origin."""
        return self.client.post(path, data={"csrf": self.options.csrf_token, **(data or {})},
                                headers={"origin": ORIGIN, **headers})

    def remember(self, name: str, description: str = "", **fields):
        """Store a learning through the service (as a session would); its full id."""
        text = description or f"{name}: described well enough to be stored as a learning."
        return self.service.remember(name, text, **fields).entry_id


@pytest.fixture
def service(tmp_path, isolated_home):
    from memory_apps.service import MemoryService

    project = tmp_path / "bank-app"
    project.mkdir()
    write_settings(project, embedding_provider="none")
    with MemoryService(global_store=str(tmp_path / "store"), project_root=str(project), tool="ui",
                       create=True) as opened:
        yield opened


def make_viewer(service, read_only: bool = False, signed_in: bool = True) -> Viewer:
    """A viewer on `service`; `signed_in`: the launch URL was opened (the cookie is set)."""
    from starlette.testclient import TestClient

    from memory_apps.web.app import create_app
    from memory_apps.web.options import ViewerOptions

    options = ViewerOptions(port=PORT, read_only=read_only, project_root=service.project_root)
    client = TestClient(create_app(service, options), base_url=ORIGIN, follow_redirects=False)
    if signed_in:
        assert client.get(f"/?token={options.token}").status_code == 200
    return Viewer(client, options, service)


@pytest.fixture
def viewer(service) -> Viewer:
    return make_viewer(service)
