"""Names that say one thing: no two modules, and no two public classes, share a name
across the project's packages (docs/design.md, "Files and style").

``bench/`` is left out on purpose: its modules are named for what they measure
(``bench/store.py`` measures the store), as the tests mirror the tree.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "protocol", "core", "server", "client", "web")
EXEMPT = {"__init__.py", "__main__.py"}


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_no_two_modules_share_a_name() -> None:
    where = defaultdict(list)
    for path in _sources():
        if path.name not in EXEMPT:
            where[path.name].append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


def test_no_two_public_classes_share_a_name() -> None:
    where = defaultdict(list)
    for path in _sources():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}
