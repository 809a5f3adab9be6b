"""`iflow-memory ui` as a user runs it: a real process that prints its URL first, serves it, and stops quietly on
Ctrl-C; a missing store or a bad flag fails before anything listens."""

from __future__ import annotations

import http.cookiejar
import queue
import signal
import subprocess
import threading
import urllib.request

import pytest

from tests._helpers import PYTHON, app_env, run_module, write_settings

pytestmark = pytest.mark.slow
WAIT_S = 120  # generous: a loaded machine may take long to import and open the store; a fast one returns at once


@pytest.fixture
def store(tmp_path, isolated_home):
    from memory_apps.service import MemoryService

    project = tmp_path / "bank-app"
    project.mkdir()
    write_settings(project, embedding_provider="none")
    with MemoryService(global_store=str(tmp_path / "store"), project_root=str(project), create=True) as service:
        entry_id = service.remember("Quote <b>CSV</b> fields", "Quote CSV fields holding the delimiter.").entry_id
    return tmp_path / "store", project, isolated_home, entry_id


def _first_line(process: subprocess.Popen) -> str:
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: lines.put(process.stdout.readline()), daemon=True).start()
    return lines.get(timeout=WAIT_S)


def test_prints_the_url_first_serves_it_and_stops_quietly_on_ctrl_c(store):
    global_store, project, home, entry_id = store
    process = subprocess.Popen(
        [PYTHON, "-m", "memory_apps", "ui", "--no-browser", "--port", "0", "--global-store", str(global_store),
         "--project-root", str(project)], env=app_env(home), cwd=str(home), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        url = _first_line(process).strip()
        assert url.startswith("http://127.0.0.1:") and "/?token=" in url
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with browser.open(url, timeout=WAIT_S) as landing:  # the token: its cookie, and a refresh to the listing
            refresh = landing.headers["Refresh"]
        assert refresh.startswith("0; url=/") and "token" not in refresh
        with browser.open(url.split("/?")[0] + refresh.split("url=", 1)[1], timeout=WAIT_S) as page:
            text = page.read().decode()
        assert page.url.endswith("/memories") and f'<tr data-id="{entry_id}">' in text
        assert "Quote &lt;b&gt;CSV&lt;/b&gt; fields" in text
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WAIT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out == "" and "Traceback" not in err, "nothing after the URL: no access log, no Ctrl-C trace"
    assert f"iflow-memory ui: serving SQLite {global_store / 'memory.db'} (Ctrl-C stops it)" in err


def test_a_missing_store_fails_before_listening(tmp_path, isolated_home):
    done = run_module("memory_apps", ["ui", "--no-browser", "--global-store", tmp_path / "nowhere",
                                      "--project-root", tmp_path], isolated_home)
    assert done.returncode == 1 and done.stdout == ""
    assert "no memory store at" in done.stderr


def test_help_shows_examples(tmp_path, isolated_home):
    done = run_module("memory_apps", ["ui", "--help"], isolated_home)
    assert done.returncode == 0 and "iflow-memory ui --read-only" in done.stdout and "--no-browser" in done.stdout


def test_without_the_ui_extra_it_says_what_to_install(tmp_path, monkeypatch, capsys):
    from memory_apps.cli import main
    from memory_apps.web import server

    monkeypatch.setattr(server, "missing_extra", lambda: "starlette")
    assert main(["ui", "--no-browser", "--global-store", str(tmp_path)]) == 1
    assert "pip install 'iflow-memory[ui]'" in capsys.readouterr().err


def test_a_port_in_use_or_out_of_range_is_refused(store, capsys):
    import socket

    from memory_apps.cli import main

    global_store, project, _, _ = store
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        assert main(["ui", "--no-browser", "--port", str(port), "--global-store", str(global_store),
                     "--project-root", str(project)]) == 1
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    finally:
        taken.close()
    assert main(["ui", "--no-browser", "--port", "70000", "--global-store", str(global_store)]) == 1
    assert "invalid --port 70000" in capsys.readouterr().err


def test_the_browser_is_given_a_private_launch_file_never_the_token(monkeypatch, tmp_path):
    # A browser's command line is readable by every local user (/proc/PID/cmdline): the token must not be in it.
    import os
    import stat
    import webbrowser
    from urllib.parse import urlsplit
    from urllib.request import url2pathname

    from memory_apps.web import server

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    asked = []
    monkeypatch.setattr(webbrowser, "open", lambda target, *a, **k: asked.append(target) or True)
    url = "http://127.0.0.1:8765/?token=the-launch-token"

    path = server.open_in_browser(url)

    assert asked == [f"file://{path}"] and "the-launch-token" not in asked[0]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    page = open(url2pathname(urlsplit(asked[0]).path), encoding="utf-8").read()
    assert 'content="0;url=http://127.0.0.1:8765/?token=the-launch-token"' in page
