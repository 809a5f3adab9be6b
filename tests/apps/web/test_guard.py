"""The guard (ADR 27): the launch token or its cookie, the bound Host only, CSRF token and same origin on every
POST, read-only refusing every change, and the safety headers on every response."""

from __future__ import annotations

import pytest

from tests.apps.web.conftest import ORIGIN, PORT, make_viewer

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")


def test_without_the_token_or_cookie_every_page_is_refused_with_the_way_in(service):
    viewer = make_viewer(service, signed_in=False)
    for path in ("/", "/memories", "/static/style.css", "/memories/0123456789abcdef"):
        refused = viewer.client.get(path)
        assert refused.status_code == 403, path
        assert "Open the URL <code>iflow-memory ui</code> printed" in refused.text


def test_a_wrong_token_is_refused_and_sets_no_cookie(service):
    viewer = make_viewer(service, signed_in=False)
    refused = viewer.client.get("/memories?token=" + "x" * 43)
    assert refused.status_code == 403 and "set-cookie" not in refused.headers
    assert viewer.client.get("/memories").status_code == 403


def test_the_token_sets_a_strict_http_only_cookie_and_redirects_without_it(service):
    viewer = make_viewer(service, signed_in=False)
    opened = viewer.client.get(f"/memories?q=csv&token={viewer.options.token}&page=2")
    assert opened.status_code == 200
    assert opened.headers["refresh"] == "0; url=/memories?q=csv&page=2", "the token leaves the address bar"
    assert 'href="/memories?q=csv&amp;page=2"' in opened.text
    cookie = opened.headers["set-cookie"]
    assert cookie.startswith(f"iflow_memory_ui_{PORT}=") and viewer.options.token in cookie
    assert all(part in cookie for part in ("HttpOnly", "SameSite=Strict", "Path=/"))
    assert viewer.client.get("/memories").status_code == 200, "the cookie lets the browser in from now on"


def test_a_host_other_than_the_bound_address_is_refused_even_with_the_cookie(viewer):
    for host in ("evil.example", f"evil.example:{PORT}", "127.0.0.1:1", f"0.0.0.0:{PORT}", ""):
        refused = viewer.client.get("/memories", headers={"host": host})
        assert refused.status_code == 403, host
        assert refused.headers["content-type"].startswith("text/plain")
    assert viewer.client.get("/memories", headers={"host": f"localhost:{PORT}"}).status_code == 200


def test_a_post_without_the_csrf_token_or_with_a_wrong_one_is_refused(viewer):
    entry_id = viewer.remember("Quote CSV fields")
    for data in ({}, {"csrf": "wrong"}):
        refused = viewer.client.post(f"/memories/{entry_id}/retire", data=data, headers={"origin": ORIGIN})
        assert refused.status_code == 403 and "CSRF" in refused.text
    assert viewer.service.get(entry_id) is not None, "nothing was retired"


def test_a_post_from_another_origin_or_naming_none_is_refused(viewer):
    entry_id = viewer.remember("Quote CSV fields")
    csrf = {"csrf": viewer.options.csrf_token}
    for headers in ({"origin": "http://evil.example"}, {"origin": "null"}, {"origin": f"http://127.0.0.1:{PORT + 1}"},
                    {"referer": "http://evil.example/page"}, {"referer": f"{ORIGIN}.evil.example/"}, {}):
        refused = viewer.client.post(f"/memories/{entry_id}/retire", data=csrf, headers=headers)
        assert refused.status_code == 403, headers
    assert viewer.service.get(entry_id) is not None, "nothing was retired"
    accepted = viewer.client.post(f"/memories/{entry_id}/retire", data=csrf, headers={"referer": f"{ORIGIN}/memories"})
    assert accepted.status_code == 303, "a same-origin Referer stands in for a missing Origin"


def test_read_only_refuses_every_post_and_renders_no_forms(service):
    viewer = make_viewer(service, read_only=True)
    entry_id = viewer.remember("Quote CSV fields")
    page = viewer.client.get(f"/memories/{entry_id}")
    assert page.status_code == 200 and 'method="post"' not in page.text and "<form id=\"action-" not in page.text
    for action in ("retire", "delete", "confirm", "edit"):
        refused = viewer.post(f"/memories/{entry_id}/{action}", {"confirm": "yes"})
        assert refused.status_code == 403 and "read-only" in refused.text
    assert viewer.service.get(entry_id) is not None


def test_every_response_carries_the_safety_headers(service):
    viewer = make_viewer(service)
    responses = [viewer.client.get("/memories"), viewer.client.get("/static/style.css"),
                 viewer.client.get("/memories/ffffffffffffffff"), viewer.client.get("/", headers={"host": "x"}),
                 make_viewer(service, signed_in=False).client.get("/memories"), viewer.client.post("/memories/x/retire")]
    for response in responses:
        assert response.headers["content-security-policy"] == CSP, response.request.url
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "same-origin"
        assert response.headers["cache-control"] == "no-store"


def test_no_page_holds_inline_script_or_style(viewer):
    entry_id = viewer.remember("Quote CSV fields", references=["src/app.py"])
    for path in ("/memories", f"/memories/{entry_id}", "/memories?q=csv"):
        text = viewer.client.get(path).text
        assert "<script" not in text and " style=" not in text and "<style" not in text and "onclick" not in text


def test_other_methods_are_not_allowed(viewer):
    assert viewer.client.put("/memories", headers={"origin": ORIGIN}).status_code == 405
    assert viewer.client.delete("/memories/0123456789abcdef").status_code == 405


def test_a_failing_page_answers_500_with_the_safety_headers_and_no_trace(viewer, monkeypatch):
    def broken():
        raise RuntimeError("secret internals")

    monkeypatch.setattr(viewer.service, "review", broken)
    failed = viewer.client.get("/memories?stale=1")
    assert failed.status_code == 500 and "secret internals" not in failed.text
    assert failed.headers["content-security-policy"] == CSP and failed.headers["cache-control"] == "no-store"


def test_a_second_viewer_on_another_port_keeps_its_own_cookie(service):
    viewer = make_viewer(service)
    viewer.client.cookies.set(f"iflow_memory_ui_{PORT + 1}", "the-other-viewers-token", domain="127.0.0.1")
    assert viewer.client.get("/memories").status_code == 200, "the other viewer's cookie did not replace this one"
    viewer.client.cookies.clear()
    viewer.client.cookies.set(f"iflow_memory_ui_{PORT + 1}", viewer.options.token, domain="127.0.0.1")
    assert viewer.client.get("/memories").status_code == 403, "only this port's cookie counts"


@pytest.mark.parametrize("path, location", [
    ("//evil.example/", "/"), ("/%5Cevil.example/", "/"), ("/memories%0d%0aSet-Cookie:x=1", "/"),
    ("/memories/abc%20def", "/memories/abc%20def")])
def test_the_token_redirect_never_leads_off_this_viewer(service, path, location):
    viewer = make_viewer(service, signed_in=False)
    opened = viewer.client.get(f"{path}?token={viewer.options.token}")
    assert opened.status_code == 200 and opened.headers["refresh"] == f"0; url={location}"
