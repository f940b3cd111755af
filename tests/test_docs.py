"""The documents a newcomer reads stay true to the project.

The README and the pages of docs/ name `make` targets, the flags of the project's
programs and each other; a rename that leaves them behind fails here. A target must be
one the Makefile has; a flag written after a program (``flowergarden-server --db``,
``python -m bench.fairplay --quick``) must be in that program's own usage, asked of
the program itself (``--help``, as a reader would); any other ``--flag`` must belong
to some program of the project, or be one of the few other tools' flags the docs
name (:data:`FOREIGN`). Every relative link must reach a file, and a ``#fragment``
into a Markdown page one of its headings.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]
LINKED = [*DOCUMENTS, ROOT / "bench" / "README.md", ROOT / "deploy" / "README.md"]

ADMIN = ("ban", "unban", "forget", "bot", "clear", "rename", "annul", "review", "log")
BENCHMARKS = (
    *("engine", "core", "store", "restore", "run", "bots", "fairplay", "cluster", "bus"),
    *("bot_pace", "loadgen", "memory", "race_server", "echo_websockets", "echo_picows"),
    *("chaos", "arena"),  # not bench.daily: its main is a coroutine, its parser outside it
)
PROGRAMS: dict[str, tuple[str, tuple[str, ...]]] = {
    # How a program is written in the docs: its module's main, and its subcommands.
    "flowergarden-server": ("server.__main__", ()),
    "python -m server": ("server.__main__", ()),
    "flowergarden-admin": ("server.operator.commands", ADMIN),
    "python -m server.operator": ("server.operator.commands", ADMIN),
    "flowergarden": ("client.__main__", ("practice", "bot")),
    "python -m engine": ("engine.__main__", ("stats", "verify")),
    "python -m protocol.conformance": ("protocol.conformance.__main__", ()),
    "python -m protocol.schema": ("protocol.schema", ()),
    "python -m web.facts": ("web.facts", ()),
    **{f"python -m bench.{name}": (f"bench.{name}", ()) for name in BENCHMARKS},
}

FOREIGN = {
    # Other tools' flags that the docs name, each where it stands.
    "--strict",  # mypy
    "--format",  # podman build --format docker, podman image inspect --format
    "--no-cache",  # podman build
    "--init",  # docker run --init
    "--mount",  # the Dockerfile's RUN --mount
    "--env-file",  # docker compose
    "--build",  # docker compose up --build
    "--change",  # podman import
    "--variant",  # debootstrap
    "--include",  # debootstrap
    "--enable-shared",  # CPython's configure
    "--default-pip",  # ensurepip
    "--check-format",  # msgfmt, on the catalogues
}

CODE = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.DOTALL)
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
MAKE = re.compile(r"(?:^|[\s;&|(])make ([a-z][a-z-]*)")
TARGET = re.compile(r"^([a-z][a-z-]*):", re.MULTILINE)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
SEPARATOR = re.compile(r"\s(?:\||;|&&|#|>)\s|\s\|\s*$")


def _code(text: str) -> list[str]:
    """Each command in the document's code: a fenced block's lines (with their
    continuations joined) and each inline span."""
    found: list[str] = []
    for block, span in CODE.findall(text):
        if span:
            found.append(span)
        else:
            found.extend(block.replace("\\\n", " ").splitlines())
    return found


@functools.cache
def _importable(module: str) -> bool:
    """False for a benchmark whose own dependencies (picows) are not installed."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as missing:
        if missing.name and missing.name.partition(".")[0] in module:
            raise  # the project's own module is missing: a wrong name above
        return False
    return True


@functools.cache
def _usage(module: str, command: str | None) -> frozenset[str]:
    """The flags in a program's usage line, as ``--help`` prints it."""
    if not _importable(module):
        pytest.skip(f"{module} needs the benchmarks' dependencies: make bench-quick")
    main = importlib.import_module(module).main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([*([command] if command else []), "--help"])
    usage = out.getvalue().partition("\n\n")[0]
    assert usage.startswith("usage:"), out.getvalue()
    return frozenset({"--help", *FLAG.findall(usage)})  # usage writes it -h


def _every_flag() -> frozenset[str]:
    flags: set[str] = set()
    for module, commands in PROGRAMS.values():
        if not _importable(module):
            continue  # its flags are still checked where a command gives them
        flags |= _usage(module, None)
        for command in commands:
            flags |= _usage(module, command)
    return frozenset(flags)


def _invocations(command: str) -> list[tuple[str, str | None, list[str], list[str]]]:
    """Each program a command runs, its subcommand, and the flags given to each: those
    before the subcommand are the program's own, those after it the subcommand's, as
    argparse reads them."""
    found = []
    names = "|".join(re.escape(name) for name in sorted(PROGRAMS, key=len, reverse=True))
    for match in re.finditer(rf"(?:^|(?<=[\s/(]))({names})(?=\s|$)", command):
        before = command[: match.start()].split()
        if before and before[-1].startswith("-"):
            continue  # an argument of the flag before it: docker run --name flowergarden
        words = SEPARATOR.split(command[match.end() :], maxsplit=1)[0].split()
        commands = PROGRAMS[match.group(1)][1]
        at = next((n for n, word in enumerate(words) if word in commands), len(words))
        sub = words[at] if at < len(words) else None
        own, its = (FLAG.findall(" ".join(part)) for part in (words[:at], words[at:]))
        found.append((match.group(1), sub, own, its))
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_make_target_named_exists(document: Path) -> None:
    targets = set(TARGET.findall((ROOT / "Makefile").read_text()))
    code = [line.partition(" #")[0] for line in _code(document.read_text())]  # not comments
    named = {target for line in code for target in MAKE.findall(line)}
    assert named <= targets, f"{document.name} names make targets the Makefile lacks"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_flag_given_to_a_program_is_its_own(document: Path) -> None:
    wrong = []
    for command in _code(document.read_text()):
        for program, sub, flags, sub_flags in _invocations(command):
            module = PROGRAMS[program][0]
            wrong += [f"{program}: {flag}" for flag in flags if flag not in _usage(module, None)]
            if sub is not None:
                usage = _usage(module, sub)
                wrong += [f"{program} {sub}: {flag}" for flag in sub_flags if flag not in usage]
    assert not wrong, f"{document.name}: flags these programs do not have: {wrong}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_flag_named_belongs_to_something(document: Path) -> None:
    named = set(FLAG.findall(document.read_text()))
    unknown = named - _every_flag() - FOREIGN
    assert not unknown, f"{document.name}: flags no program has: {unknown}"


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings: lower case, punctuation dropped."""
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", page.read_text(), re.MULTILINE):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


def _broken_links(document: Path) -> list[str]:
    broken = []
    for target in LINK.findall(document.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, fragment = target.partition("#")
        page = (document.parent / path).resolve() if path else document
        if not page.exists() or (
            fragment and page.suffix == ".md" and fragment not in _anchors(page)
        ):
            broken.append(target)
    return broken


@pytest.mark.parametrize("document", LINKED, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves(document: Path) -> None:
    broken = _broken_links(document)
    assert not broken, f"{document.relative_to(ROOT)}: links that reach nothing: {broken}"


def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    """The parser of commands finds a wrong flag, and only where it stands; a link to
    nothing, or to a heading a page lacks, is found."""
    page = tmp_path / "page.md"
    page.write_text("# A page\n[up](#a-page) [gone](nowhere.md) [lost](#b) [web](https://x)\n")
    assert _broken_links(page) == ["nowhere.md", "#b"]
    assert _invocations(".venv/bin/flowergarden-server --port 1 --nope 2 | grep x --nope") == [
        ("flowergarden-server", None, ["--port", "--nope"], [])
    ]
    assert _invocations("docker run --name flowergarden --init image") == []
    assert _invocations("flowergarden-admin --db f ban Al --reason r") == [
        ("flowergarden-admin", "ban", ["--db"], ["--reason"])
    ]
    assert "--bot" not in _usage("client.__main__", "practice")
    assert "--reason" in _usage("server.operator.commands", "ban")
    assert "--nope" not in _every_flag()
    assert "serve" in MAKE.findall("PORT=1 make serve")


def test_protocol_copy_matches_the_shared_contract() -> None:
    original = SHARED / "PROTOCOL.md"
    if not original.exists():
        pytest.skip("the shared contract is not beside this checkout")
    copy = (ROOT / "docs" / "PROTOCOL.md").read_text()
    assert copy == original.read_text(), "docs/PROTOCOL.md is stale: copy ../shared/PROTOCOL.md"


def test_readme_starts_a_newcomer() -> None:
    """The first screen: a picture, the rules, the two commands with PORT=, both ways to play."""
    readme = README.read_text()
    order = [
        "![",
        "## The rules",
        "make serve",
        "PORT=",
        "open http://",
        "## Play in a browser",
        "## Play in a terminal",
    ]
    places = [readme.index(part) for part in order]
    assert places == sorted(places), "the README's first screen is out of order"
    assert len(readme.splitlines()) < 200
    assert "make test" in readme


def test_the_server_page_lists_every_flag_of_the_server() -> None:
    """docs/server.md's table of flags has a row for each flag, and no other."""
    page = (ROOT / "docs" / "server.md").read_text()
    rows = set(re.findall(r"^\| `(--[a-z-]+)` \|", page, re.MULTILINE))
    assert rows == _usage("server.__main__", None) - {"--help"}
