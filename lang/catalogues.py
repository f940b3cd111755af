"""The catalogues: one gettext ``.po`` file per language and domain, read at run time.

Theory of operation. A message's ``msgid`` is a symbolic key (``howto.goal``,
``error.illegal_move``), never its English: the English lives in ``en``'s catalogue
like every other language's text, so that rewording it changes no key and no other
catalogue. ``lang/locales/LANG/LC_MESSAGES/DOMAIN.po`` holds one language's texts of
one domain: ``common`` (the game's words, the rules, the server's error codes, shared
by both clients), ``terminal`` and ``browser`` (each client's own screens). The
terminal client reads ``common`` and ``terminal``; ``python -m web.catalogues``
writes ``common`` and ``browser`` out as the page's JSON.

Reading a language merges its domains into one Babel catalogue, writes it as a
``.mo`` in memory (Babel's ``write_mo``) and hands that to the standard library's
:class:`gettext.GNUTranslations`: plurals follow the file's own ``Plural-Forms``, as
gettext does, and English is added as the fallback, so a key a language lacks (or
leaves empty, or marks fuzzy) is said in English, key by key. No compile step runs
at install and no ``.mo`` file is kept beside its ``.po``, so the two cannot drift.

A text's placeholders are ``{name}``: :meth:`Catalogue.text` puts each parameter in,
a number written as the language writes numbers. A plural message chooses its form
by the ``count`` parameter. The pseudo-language :data:`PSEUDO` (``qps``) is English
with every letter accented, the vowels doubled (about a third longer) and brackets
around: a screen shown in it shows at once which words skipped the catalogue and
which boxes are too narrow for a longer language. It is for tests, never offered.
"""

from __future__ import annotations

import gettext
import io
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from .formats import number_text

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from babel.messages.catalog import Catalog

__all__ = [
    "BROWSER",
    "DOMAINS",
    "ENGLISH",
    "LANGUAGES",
    "LOCALES",
    "PSEUDO",
    "TERMINAL",
    "Catalogue",
    "Message",
    "catalogue",
    "messages",
    "own_texts",
    "placeholders",
    "po_path",
    "pseudo",
    "read",
]

LOCALES = Path(__file__).parent / "locales"
ENGLISH = "en"
LANGUAGES = ("en", "de", "nl", "it")
"""The languages offered, English first. A new language is a line here and its catalogues."""
PSEUDO = "qps"
"""The pseudo-language: English, accented and lengthened, for tests only."""
DOMAINS = ("common", "terminal", "browser")
TERMINAL = ("common", "terminal")
"""The domains the terminal client reads."""
BROWSER = ("common", "browser")
"""The domains the page's JSON catalogues are made of."""

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def po_path(language: str, domain: str) -> Path:
    """Where a language's catalogue of ``domain`` lives."""
    return LOCALES / language / "LC_MESSAGES" / f"{domain}.po"


def read(language: str, domain: str) -> Catalog:
    """One ``.po`` file as Babel reads it; a file that is not valid gettext raises."""
    with po_path(language, domain).open("rb") as file:
        return read_po(file, locale=language, domain=domain, abort_invalid=True)


@dataclass(frozen=True, slots=True)
class Message:
    """A key's text in one language: one string, or its plural forms in the file's order."""

    key: str
    forms: tuple[str, ...]
    plural: bool

    @property
    def text(self) -> str:
        return self.forms[0]


def messages(language: str, domains: tuple[str, ...]) -> Iterator[Message]:
    """Every message of a language's domains, translated or not (for tests and the JSON)."""
    for domain in domains:
        for entry in read(language, domain):
            if not entry.id:
                continue  # the header
            plural = isinstance(entry.id, tuple | list)
            key = entry.id[0] if plural else entry.id
            # A fuzzy text is a guess nobody checked: gettext leaves it out, and so do we.
            forms = tuple("" if entry.fuzzy else form for form in _forms(entry.string))
            yield Message(str(key), forms, plural)


def _forms(string: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """A Babel message's text as a tuple of forms (one, unless it is a plural)."""
    if string is None:
        return ("",)
    return (string,) if isinstance(string, str) else tuple(string)


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders of a text."""
    return set(_PLACEHOLDER.findall(text))


_ACCENTED = str.maketrans(
    "abcdeghiklnorstuwyzABCDEGHIKLNORSTUWYZ",
    "àƀçďéĝĥîķĺñöŕšţûŵýžÀƁÇĎÉĜĤÎĶĹÑÖŔŠŢÛŴÝŽ",
)
_VOWEL = re.compile(r"([aeiouAEIOU])")


def pseudo(text: str) -> str:
    """``text`` in the pseudo-language: placeholders kept, letters accented, vowels doubled."""
    parts = re.split(r"(\{\w+\})", text)
    out = "".join(
        part if _PLACEHOLDER.fullmatch(part) else _VOWEL.sub(r"\1\1", part).translate(_ACCENTED)
        for part in parts
    )
    return f"[{out}]"


class Catalogue:
    """One language's texts, English behind it key by key."""

    def __init__(self, language: str, domains: tuple[str, ...] = TERMINAL) -> None:
        self.language = language
        self.domains = domains
        self._plurals = frozenset(m.key for m in messages(ENGLISH, domains) if m.plural)
        self._translations = _translations(language, domains)
        if language != ENGLISH:
            self._translations.add_fallback(_translations(ENGLISH, domains))

    @property
    def locale(self) -> str:
        """The locale numbers and dates are written in (the pseudo-language writes English)."""
        return ENGLISH if self.language == PSEUDO else self.language

    def is_plural(self, key: str) -> bool:
        return key in self._plurals

    def text(self, key: str, /, **params: object) -> str:
        """The text of ``key`` with its placeholders filled; the key itself if no catalogue has it.

        A plural message takes its form from ``count``. A placeholder with no parameter
        is a mistake of the caller's and raises :class:`KeyError`.
        """
        if key in self._plurals:
            count = params["count"]
            if not isinstance(count, int):
                raise TypeError(f"{key}: count must be an int, not {count!r}")
            template = self._translations.ngettext(key, key, count)
        else:
            template = self._translations.gettext(key)
        return _PLACEHOLDER.sub(lambda match: self._param(key, match.group(1), params), template)

    def _param(self, key: str, name: str, params: Mapping[str, object]) -> str:
        if name not in params:
            raise KeyError(f"{key} needs the parameter {name!r}")
        value = params[name]
        if isinstance(value, int | float) and not isinstance(value, bool):
            return number_text(value, self.locale)
        return str(value)


def _translations(language: str, domains: tuple[str, ...]) -> gettext.GNUTranslations:
    """A language's domains merged and compiled in memory, as gettext reads a ``.mo``."""
    source = ENGLISH if language == PSEUDO else language
    merged = read(source, domains[0])
    for domain in domains[1:]:
        for entry in read(source, domain):
            if entry.id:
                merged[entry.id] = entry
    if language == PSEUDO:
        for entry in merged:
            if entry.id:
                forms = tuple(pseudo(form) for form in _forms(entry.string))
                entry.string = forms if entry.pluralizable else forms[0]
    compiled = io.BytesIO()
    write_mo(compiled, merged)  # leaves out empty and fuzzy texts: English says those
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def _category_samples(locale: str) -> dict[str, int]:
    """A count of each CLDR plural category the locale has among whole numbers."""
    rule = Locale.parse(locale).plural_form
    samples: dict[str, int] = {}
    for count in [*range(1001), 10**6]:
        samples.setdefault(rule(count), count)
    return samples


def own_texts(language: str, domains: tuple[str, ...]) -> dict[str, str | dict[str, str]]:
    """The texts a language has itself (none of English's), for the page's JSON.

    A plural's forms go by CLDR category (``one``, ``many``, ``other``), as
    ``Intl.PluralRules`` names them, each the form gettext picks for a count of that
    category: the ``.po`` file's order of forms never reaches the page.
    """
    translations = _translations(language, domains)
    english = {m.key: m for m in messages(ENGLISH, domains)}
    samples = _category_samples(ENGLISH if language == PSEUDO else language)
    texts: dict[str, str | dict[str, str]] = {}
    for key in sorted(english):
        if english[key].plural:
            forms = {
                category: translations.ngettext(key, key, count)
                for category, count in samples.items()
            }
            if any(form != key for form in forms.values()):
                texts[key] = forms
        elif (text := translations.gettext(key)) != key:
            texts[key] = text
    return texts


@cache
def catalogue(language: str, domains: tuple[str, ...] = TERMINAL) -> Catalogue:
    """The catalogue of ``language``, read once per process."""
    return Catalogue(language, domains)
