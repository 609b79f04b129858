"""The console's files as the service serves them (connectivity/web/console): the page, its
styles and modules, each with its type and the Content-Security-Policy; nothing outside this
origin named anywhere, so the page works offline; the signing script is the docs page's own.
The page in a real browser is test_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

from connectivity.web.console import CONTENT_SECURITY_POLICY, STATIC
from connectivity.web.docs_page import HERE as DOCS_PAGE

MODULE_IMPORT = re.compile(r'^import .* from "\./([a-z-]+\.js)";$', re.M)
PAGE_ASSET = re.compile(r'(?:src|href)="(/console/[^"]+)"')


def served(client, path):
    answer = client.get(path)
    assert answer.status_code == 200, path
    assert answer.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    return answer


def test_the_page_and_every_file_it_loads_are_served(client):
    page = served(client, "/console")
    assert page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assets = PAGE_ASSET.findall(html)
    assert {"/console/console.css", "/console/sign-requests.js", "/console/js/main.js"} <= set(assets)
    # every module main.js imports, and each of theirs, is served as JavaScript
    pending, seen = ["main.js"], set()
    while pending:
        name = pending.pop()
        seen.add(name)
        module = served(client, f"/console/js/{name}")
        assert module.mimetype == "text/javascript"
        pending += [m for m in MODULE_IMPORT.findall(module.get_data(as_text=True))
                    if m not in seen]
    assert seen == {path.name for path in (STATIC / "js").glob("*.js")}, "a module nobody loads"
    assert served(client, "/console/console.css").mimetype == "text/css"


def test_the_signing_script_is_the_docs_pages_own(client):
    script = served(client, "/console/sign-requests.js")
    assert script.mimetype == "text/javascript"
    assert script.get_data() == (DOCS_PAGE / "sign-requests.js").read_bytes()


def test_nothing_is_fetched_from_elsewhere():
    """No URL of another origin in any of the console's files: it works offline."""
    for path in STATIC.rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert not re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), path
    assert "connect-src 'self'" in CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY  # no inline script, no eval


def test_the_key_is_kept_in_memory_only():
    """No storage, cookie or URL holds the key: the modules never touch them."""
    for path in (STATIC / "js").glob("*.js"):
        text = path.read_text()
        for stored in ("localStorage", "sessionStorage", "indexedDB", "document.cookie",
                       "history.pushState", "history.replaceState"):
            assert stored not in text, f"{path.name} uses {stored}"


def test_outside_the_folder_is_not_served(client):
    for path in ("/console/../../../app.py", "/console/%2e%2e/__init__.py",
                 "/console/js/../../__init__.py", "/console/nothing.js"):
        assert client.get(path).status_code == 404, path
    assert client.get("/console/").headers["Location"].endswith("/console")


def test_the_docs_page_and_the_readme_lead_to_it(client):
    docs = client.get("/api/connectivity/v1/docs").get_data(as_text=True)
    assert 'href="/console"' in docs
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    assert "/console" in readme and "docs/console.md" in readme
