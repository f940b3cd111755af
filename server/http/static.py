"""The browser client's files, served at ``/`` from the ``web`` package.

``GET /`` is ``web/static/index.html``; ``GET /NAME`` is ``web/static/NAME``
for the files that ship there, found by name in a table built once at start:
a path is looked up, never joined onto a directory, so no ``..``, encoded
slash or absolute path can reach another file. Every file carries an ``ETag``
(its SHA-256) and ``Cache-Control: no-cache``: a browser keeps it but asks
each time, and gets ``304 Not Modified`` while it is unchanged, so a deploy
never leaves a page running against scripts of another version.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from http import HTTPStatus
from importlib import resources
from typing import TYPE_CHECKING

from server.transport.responses import http_response

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from server.transport.connection import Request, Response

__all__ = ["CONTENT_TYPES", "StaticFiles"]

log = logging.getLogger("flowergarden.server")

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".jsonl": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
}
"""What each kind of file is served as; files of other kinds are not served."""


@dataclass(frozen=True, slots=True)
class _File:
    body: bytes
    content_type: str
    etag: str


class StaticFiles:
    """The files of ``web/static``, by the path they are served at."""

    def __init__(self, files: dict[str, _File]) -> None:
        self._files = files

    @classmethod
    def load(cls, package: str = "web") -> StaticFiles:
        """Every servable file under the package's ``static`` directory (none if it is absent)."""
        files: dict[str, _File] = {}
        try:
            root = resources.files(package).joinpath("static")
        except ModuleNotFoundError:
            log.warning("no %s package: the browser client is not served", package)
            return cls(files)
        if root.is_dir():
            cls._walk(root, "", files)
        if "/index.html" in files:
            files["/"] = files["/index.html"]
        return cls(files)

    @classmethod
    def _walk(cls, folder: Traversable, prefix: str, files: dict[str, _File]) -> None:
        for entry in folder.iterdir():
            path = f"{prefix}/{entry.name}"
            if entry.is_dir():
                cls._walk(entry, path, files)
                continue
            content_type = CONTENT_TYPES.get("." + entry.name.rpartition(".")[2])
            if content_type is not None and not entry.name.startswith("."):
                body = entry.read_bytes()
                etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
                files[path] = _File(body, content_type, etag)

    def paths(self) -> list[str]:
        """Every path a file is served at."""
        return sorted(self._files)

    def __contains__(self, path: str) -> bool:
        return path in self._files

    def answer(self, path: str, request: Request) -> Response | None:
        """The file at ``path``, 304 if the browser has it already; None if there is none."""
        found = self._files.get(path)
        if found is None:
            return None
        headers = [("ETag", found.etag), ("Cache-Control", "no-cache")]
        if request.headers.get("If-None-Match") == found.etag:
            return http_response(HTTPStatus.NOT_MODIFIED, b"", found.content_type, headers)
        headers.append(("X-Content-Type-Options", "nosniff"))
        return http_response(HTTPStatus.OK, found.body, found.content_type, headers)
