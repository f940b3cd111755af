"""Numbers, dates and times as a language writes them, through Babel's CLDR data.

The page writes them with ``Intl.NumberFormat`` and ``Intl.DateTimeFormat``
(web/static/js/i18n.js) from the same CLDR data, so both clients write ``1.234,5`` in
German and ``1,234.5`` in English. Numbers round half away from zero, as Intl does
("halfExpand"), not half to even, Babel's default: 41.25 s is 41.3 s in both clients.
Babel groups digits from the fourth on in every language (it does not read CLDR's
minimum grouping digits), and the page asks Intl to do the same (``useGrouping:
"always"``): both write ``1.234,5`` in Italian.
"""

from __future__ import annotations

import decimal
from typing import TYPE_CHECKING

from babel.dates import format_date, format_datetime, format_time
from babel.numbers import format_decimal
from babel.units import format_unit

if TYPE_CHECKING:
    import datetime

__all__ = ["date_text", "datetime_text", "number_text", "seconds_text", "time_text"]


def _pattern(decimals: int) -> str:
    return "#,##0" + ("." + "0" * decimals if decimals else "")


def number_text(value: float, locale: str, *, decimals: int | None = None) -> str:
    """``value`` in ``locale``'s digits and separators; ``decimals`` fixes the fraction."""
    pattern = None if decimals is None else _pattern(decimals)
    with decimal.localcontext(rounding=decimal.ROUND_HALF_UP):
        return format_decimal(value, format=pattern, locale=locale)


def seconds_text(seconds: float, locale: str, *, decimals: int = 1) -> str:
    """Seconds with the language's short unit: ``41.3 sec``, ``41,3 Sek.``, ``41,3 s``."""
    with decimal.localcontext(rounding=decimal.ROUND_HALF_UP):
        return format_unit(
            seconds, "duration-second", length="short", format=_pattern(decimals), locale=locale
        )


def date_text(value: datetime.date, locale: str, *, style: str = "medium") -> str:
    """A date: ``Dec 2, 2026``, ``02.12.2026``, ``2 dec 2026``, ``2 dic 2026``."""
    return format_date(value, format=style, locale=locale)


def time_text(value: datetime.time | datetime.datetime, locale: str) -> str:
    """A time of day, to the minute: ``4:05 PM``, ``16:05``."""
    return format_time(value, format="short", locale=locale)


def datetime_text(value: datetime.datetime, locale: str, *, style: str = "medium") -> str:
    """A date with its time, the language's way round."""
    return format_datetime(value, format=style, locale=locale)
