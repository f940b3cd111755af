"""The players' languages: English, German, Dutch and Italian, from gettext catalogues.

A client says which language to speak once, with :func:`use` (the terminal client
passes its ``--lang`` through :func:`choose`), and then asks for each text by key::

    import lang

    lang.use(lang.choose(args.lang))        # --lang, else LANGUAGE/LC_ALL/LANG, else en
    lang.t("howto.goal")                    # a text
    lang.t("error.room_full")               # a server error, by its code
    lang.howto()                            # How to play: [(title, [paragraph, ...]), ...]
    lang.t("margin.cards_ahead", count=3)   # a plural: "3 cards ahead"
    lang.number(1234.5)                     # "1.234,5" in German
    lang.seconds(41.25)                     # "41,3 Sek."

This package stands alone (the standard library and Babel): neither it nor its
users import the server. docs/translating.md says where the catalogues live and how
to add a key or a language; :mod:`lang.catalogues` says how they are read.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

from . import formats, guide
from .catalogues import (
    BROWSER,
    DOMAINS,
    ENGLISH,
    LANGUAGES,
    PSEUDO,
    TERMINAL,
    Catalogue,
    catalogue,
    pseudo,
)
from .choice import choose, supported
from .guide import HOWTO

if TYPE_CHECKING:
    import datetime
    from collections.abc import Iterator

__all__ = [
    "BROWSER",
    "DOMAINS",
    "ENGLISH",
    "HOWTO",
    "LANGUAGES",
    "PSEUDO",
    "TERMINAL",
    "Catalogue",
    "catalogue",
    "choose",
    "current",
    "date",
    "howto",
    "language",
    "number",
    "pseudo",
    "seconds",
    "supported",
    "t",
    "time",
    "use",
    "using",
]

_language = ENGLISH


def use(language: str) -> None:
    """Speak ``language`` from now on, in this process (one of :data:`LANGUAGES`, or qps)."""
    global _language  # noqa: PLW0603  (one language per process, chosen once at start)
    if language not in (*LANGUAGES, PSEUDO):
        raise ValueError(f"no catalogue for {language!r}")
    catalogue(language)  # read it now: a broken catalogue fails at start, not mid-race
    _language = language


@contextmanager
def using(language: str) -> Iterator[None]:
    """Speak ``language`` inside the block (for tests that render in several languages)."""
    before = _language
    use(language)
    try:
        yield
    finally:
        use(before)


def language() -> str:
    """The language spoken now."""
    return _language


def current() -> Catalogue:
    """The catalogue of the language spoken now (the terminal client's domains)."""
    return catalogue(_language, TERMINAL)


def t(key: str, /, **params: object) -> str:
    """The text of ``key`` in the language spoken now, its ``{placeholders}`` filled.

    A plural message takes its form from ``count``; a key no catalogue has comes back
    as itself, and a key only English has is said in English.
    """
    return current().text(key, **params)


def howto() -> list[tuple[str, list[str]]]:
    """How to play in the language spoken now: each section's title and paragraphs."""
    return guide.sections(_language)


def number(value: float, *, decimals: int | None = None) -> str:
    """A number as the language spoken now writes it."""
    return formats.number_text(value, current().locale, decimals=decimals)


def seconds(value: float, *, decimals: int = 1) -> str:
    """Seconds with the unit, as the language spoken now writes them: ``41,3 Sek.``."""
    return formats.seconds_text(value, current().locale, decimals=decimals)


def date(value: datetime.date) -> str:
    """A date as the language spoken now writes it."""
    return formats.date_text(value, current().locale)


def time(value: datetime.time | datetime.datetime) -> str:
    """A time of day, to the minute, as the language spoken now writes it."""
    return formats.time_text(value, current().locale)
