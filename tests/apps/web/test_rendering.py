"""Rendering rules for stored text: autoescape everywhere, and only http(s) references as links."""

from __future__ import annotations

import pytest

from memory_apps.web.rendering import ENV, reference_html


@pytest.mark.parametrize("reference", [
    "https://example.org/a", "http://example.org:8080/x?y=1", "HTTPS://EXAMPLE.ORG/"])
def test_http_references_become_links_that_leak_nothing(reference):
    html = str(reference_html(reference))
    assert html.startswith('<a href="') and 'rel="noopener noreferrer"' in html


@pytest.mark.parametrize("reference", [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,<script>x</script>", "vbscript:x",
    "file:///etc/passwd", "//evil.example/x", "https://", "https:///path", "src/app.py:12",
    'https://example.org/" onmouseover="x', "https://exa mple.org/", "\x01javascript:alert(1)"])
def test_anything_else_stays_escaped_text(reference):
    html = str(reference_html(reference))
    assert "<a " not in html and "<script" not in html and html.startswith("<span>")


@pytest.mark.parametrize("reference", [
    "http://127.0.0.1:9999/steal", "http://localhost:8888/", "http://LOCALHOST./x", "http://app.localhost/",
    "http://[::1]:8000/", "http://10.0.0.5/admin", "http://192.168.1.1/", "http://169.254.169.254/latest",
    "http://intranet/", "https://example.org@127.0.0.1/x", "http://user:pw@example.org/"])
def test_a_local_or_disguised_address_is_no_link(reference):
    # A link to a local server would hand it the viewer's cookie (cookies ignore ports); a user part hides the host.
    html = str(reference_html(reference))
    assert "<a " not in html and html.startswith("<span>")


def test_every_template_autoescapes():
    rendered = ENV.from_string("{{ x }}").render(x="<b>&\"'")
    assert rendered == "&lt;b&gt;&amp;&#34;&#39;"
