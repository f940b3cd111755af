"""Which language a program speaks: its ``--lang``, else the environment, else English.

The environment is read as Python's :mod:`gettext` reads it: the first of ``LANGUAGE``,
``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set decides, and its entries (``LANGUAGE``
may list several, ``de:nl``) are tried in order. ``de_DE.UTF-8``, ``de-AT`` and ``de``
all mean German. A locale with no catalogue here (``fr_FR``, ``C``) means English: the
variable that decides is not passed over for a later one, as gettext would not.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from .catalogues import ENGLISH, LANGUAGES, PSEUDO

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["ENVIRONMENT", "choose", "supported"]

ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""The variables read, in gettext's order."""

_LANGUAGE_PART = re.compile(r"[A-Za-z]+")


def supported(tag: str) -> str | None:
    """The language of a locale name or language tag, if there is a catalogue for it."""
    found = _LANGUAGE_PART.match(tag.strip())
    language = found.group(0).lower() if found else ""
    return language if language in LANGUAGES else None


def choose(flag: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: ``flag`` (``--lang``), else the environment's, else English.

    A ``flag`` with no catalogue raises :class:`ValueError` with words for the command
    line; the pseudo-language is taken from the flag alone, for tests.
    """
    if flag:
        if flag == PSEUDO:
            return PSEUDO
        language = supported(flag)
        if language is None:
            offered = ", ".join(LANGUAGES)
            raise ValueError(f"no catalogue for {flag!r}: choose one of {offered}")
        return language
    env = os.environ if environ is None else environ
    for variable in ENVIRONMENT:
        value = env.get(variable, "")
        if value:
            found = [supported(entry) for entry in value.split(":")]
            return next((language for language in found if language), ENGLISH)
    return ENGLISH
