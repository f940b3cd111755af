"""The page's files: every module loads, and the page fetches nothing from anywhere but
its own server (no CDN, no fonts from elsewhere, no build step: what ships is what runs)."""

from __future__ import annotations

import re
from pathlib import Path

import web as web_package

STATIC = Path(web_package.__file__).parent / "static"
MODULES = sorted(path.name for path in (STATIC / "js").glob("*.js"))


def test_nothing_from_another_origin() -> None:
    for path in STATIC.rglob("*"):
        if path.suffix in (".html", ".js", ".css"):
            text = path.read_text()
            assert not re.search(r"""(src|href|url)\s*[=(]\s*["']?(https?:)?//""", text), path
            for imported in re.findall(r"""^\s*import\b[^"']*["']([^"']+)["']""", text, re.M):
                assert imported.startswith("./"), (path.name, imported)


def test_every_module_loads(web, new_page) -> None:
    page = new_page(web.base)
    failed = page.evaluate(
        """async (modules) => {
          const failed = [];
          for (const name of modules) {
            try { await import(`/js/${name}`); } catch (error) { failed.push(`${name}: ${error}`); }
          }
          return failed;
        }""",
        MODULES,
    )
    assert failed == []
    assert len(MODULES) > 20
