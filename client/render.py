"""Drawings of the state as Rich text: boards, the top bar, the warnings, the room code.

Pure functions of the state and a width, so that widgets stay thin (they only
call these in ``render``) and a resize simply draws again at the new width.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

import lang
from engine import Card
from lang import t
from protocol import RACING

from .apidata import rating_text
from .bests import practice_key
from .card_faces import CARD_WIDTH, card_text, suit_mark
from .keys import BED_KEYS
from .timing import IDLE_WARNING, clock_text, stopwatch_text
from .words import count_words

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from protocol import Rules

    from .state import ClientState, RaceView

__all__ = [
    "MIN_SIZE",
    "player_names",
    "render_board",
    "render_code",
    "render_idle",
    "render_link_reason",
    "render_size",
    "render_topbar",
    "rules_words",
    "versus",
]

MIN_SIZE = (80, 24)
"""The smallest terminal the screens are laid out for: both boards, every card."""

_LEGAL = "bold #101010 on #e5c07b"
_WAITING = "#9a9a9a"
_DIM = "#7a7a7a"


def rules_words(rules: Rules, *, clock: bool = True) -> str:
    """``rated · mirror · winnable · 1 redeal · tiebreak first · 5:00 clock``.

    ``clock`` False leaves the time limit out (the top bar shows the time left instead).
    """
    words: list[str] = [t(f"rule.{rules.deal}")]
    if rules.rated:
        words.insert(0, t("rule.rated"))
    if rules.winnable_only:
        words.append(t("rule.winnable"))
    if rules.redeals:
        words.append(t("rule.redeals", count=rules.redeals))
    if rules.tiebreak == "first":
        words.append(t("rule.tiebreak_first"))
    if rules.time_limit_s is not None and clock:
        limit = rules.time_limit_s
        words.append(t("rule.clock", clock=f"{limit // 60}:{limit % 60:02d}"))
    return " · ".join(words)


def render_topbar(state: ClientState, now: float, width: int | None = None) -> Text:
    """Who races whom, under which rules, the stopwatch, the clock and the connection.

    On a line of ``width`` cells (less its padding) the rules go first when it is too
    short: the names, the time and the line matter more (a longer language needs it).
    """
    text = _topbar(state, now, rules=True)
    if width is not None and text.cell_len > width - 2:
        text = _topbar(state, now, rules=False)
    return text


def _topbar(state: ClientState, now: float, *, rules: bool) -> Text:
    race = state.race
    text = Text()
    if race is None:
        text.append(t("tui.app.title"), style="bold")
    elif race.other is None:
        return _practice_bar(race, now)
    else:
        text.append(versus(player_names(race.players, race.bots)), style="bold")
        if race.seat is None:
            text.append(" " + t("tui.race.watching"))
    if race is not None:
        left = race.clock_left(now)
        live_clock = left is not None and race.over is None
        if rules:
            text.append(f" · {rules_words(race.rules, clock=not live_clock)}")
        text.append(
            f" · {t('tui.race.time', time=stopwatch_text(race.elapsed(now)))}", style="bold"
        )
        if left is not None and live_clock:
            style = "bold red" if left < 30 else "bold"
            text.append(f" · {t('tui.race.clock_left', time=clock_text(left))}", style=style)
    text.append("  ")
    text.append_text(link_text(state, now))
    return text


def _practice_bar(race: RaceView, now: float) -> Text:
    """``Practice (winnable) · time 0:12 · to beat: cleared in 41.2 s``: the clock, raced."""
    text = Text(t("tui.practice.title", rules=practice_key(race.rules)), style="bold")
    text.append(f" · {t('tui.race.time', time=stopwatch_text(race.elapsed(now)))}", style="bold")
    if race.target is None:
        text.append(f" · {t('tui.practice.no_best')}", style=_DIM)
        return text
    beaten = race.target.count == 52 and race.elapsed(now) * 1000 > race.target.ms
    style = _DIM if beaten or race.over is not None else "bold green"
    best = count_words(race.target.count, race.target.ms)
    text.append(f" · {t('tui.practice.to_beat', best=best)}", style=style)
    return text


def player_names(players: Sequence[str], bots: Sequence[bool]) -> list[str]:
    """The players' names, a bot's marked ``(bot)`` (``bots`` may be empty: none known)."""
    return [
        t("tui.name.bot", name=name) if bots and bots[i] else name for i, name in enumerate(players)
    ]


def versus(names: Sequence[str]) -> str:
    """``ann vs bob (bot)``."""
    return t("tui.race.versus", first=names[0], second=names[1]) if len(names) == 2 else names[0]


def render_idle(race: RaceView | None, now: float) -> Text:
    """The idle limit's countdown, in its last :data:`IDLE_WARNING` seconds; else nothing."""
    left = None if race is None else race.idle_left(now)
    if race is None or left is None or left > IDLE_WARNING:
        return Text()
    # No redeal left: none is named.
    key = "tui.race.idle_redeal" if race.board.redeals_left else "tui.race.idle"
    return Text(
        t(key, seconds=lang.number(race.idle_s or 0), left=clock_text(left)),
        style="bold white on red",
    )


def render_size(width: int, height: int) -> Text:
    """A notice when the terminal is smaller than :data:`MIN_SIZE`; else nothing."""
    least_width, least_height = MIN_SIZE
    if width >= least_width and height >= least_height:
        return Text()
    return Text(
        t("tui.size.small", size=f"{width}x{height}", least=f"{least_width}x{least_height}"),
        style="bold black on yellow",
    )


def link_text(state: ClientState, now: float) -> Text:
    """The connection, in a few words; nothing in practice."""
    if state.race is not None and state.race.other is None:
        return Text()
    if state.link == "online":
        return Text(f"● {t('tui.link.online')}", style="green")
    if state.link == "reconnecting" or (state.link == "connecting" and state.attempt):
        wait = "" if state.retry_at is None else f" in {max(0, state.retry_at - now):.0f}s"
        return Text(
            f"◌ {t(f'tui.link.{state.link}')}{wait} ({t('tui.link.try', count=state.attempt)})",
            style="bold yellow",
        )
    if state.link == "replaced":
        return Text(f"✕ {t('tui.link.replaced')}", style="bold red")
    if state.link == "banned":
        return Text(f"✕ {t('tui.link.banned')}", style="bold red")
    if state.link == "failed":
        return Text(f"✕ {t('tui.link.failed')}", style="bold red")
    return Text(f"◌ {t('tui.link.connecting_now')}", style="yellow")


def render_link_reason(state: ClientState) -> Text:
    """Why the line is down or gone, in full (the top bar has room for a word or two)."""
    if state.link == "online" or (state.race is not None and state.race.other is None):
        return Text()
    stopped = state.link in ("failed", "replaced", "banned")
    return Text(state.link_reason, style="bold red" if stopped else "yellow")


def render_board(race: RaceView, seat: int, width: int, *, ascii: bool, now: float) -> Text:
    """One board: name and count, foundations, the six beds fanned, the bouquet.

    The main board (``seat == race.main``) carries the key labels when this
    client plays on it; the other board is drawn without them.
    """
    board = race.boards[seat]
    labelled = seat == race.main and race.seat is not None
    status = race.statuses[seat]
    lines = [_heading(race, seat, now), _foundations(board.foundations, ascii=ascii)]
    for index, bed in enumerate(board.beds):
        lines.append(_bed(index, bed, board.is_legal, labelled=labelled, ascii=ascii))
    lines.append(Text(t("word.bouquet"), style=_DIM))
    per_line = max(1, width // (CARD_WIDTH + (3 if labelled else 1)))
    cards = list(board.bouquet)
    for start in range(0, max(len(cards), 1), per_line):
        chunk = cards[start : start + per_line]
        line = Text()
        for card in chunk:
            if labelled:
                label = race.labels.get(card, "?")
                line.append(label, style=_LEGAL if board.is_legal(card) else _WAITING)
                line.append(" ")
            line.append_text(card_text(card, ascii=ascii))
            line.append(" ")
        lines.append(line if chunk else Text(t("tui.board.empty"), style=_DIM))
    if status in RACING and race.over is None and seat != race.main and race.away_until:
        away = t("tui.race.away", left=clock_text(race.away_until - now))
        lines.append(Text(away, "bold red"))
    return Text("\n").join(lines)


def _heading(race: RaceView, seat: int, now: float) -> Text:
    board = race.boards[seat]
    you = seat == race.seat
    name = player_names(race.players, race.bots)[seat]
    name = t("tui.race.you", name=name) if you and race.other is not None else name
    text = Text(name, style="bold")
    rating, provisional = race.rating(seat)
    if rating is not None:
        text.append(f" {rating_text(rating, provisional)}", style="magenta")
    text.append(f"  {board.count}/52", style="bold cyan")
    status = race.statuses[seat]
    words = "" if status == "playing" else t(f"status.{status}")
    if words and not (race.statuses[seat] == "stuck" and not you):
        text.append(f"  {words}", style="yellow")
    # The small board's heading has no room for it in a longer language (80x24).
    if board.redeals_left and race.statuses[seat] in RACING and seat == race.main:
        text.append(f"  {t('tui.board.redeal_left')}", style=_DIM)
    return text


def _foundations(foundations: list[int], *, ascii: bool) -> Text:
    text = Text()
    for suit, top in enumerate(foundations):
        if top:
            text.append_text(card_text(Card.of(top, suit), ascii=ascii))
        else:
            text.append(f"·{suit_mark(suit, ascii=ascii)}".rjust(CARD_WIDTH), style=_DIM)
        text.append(" ")
    return text


def _bed(
    index: int, bed: list[Card], legal: Callable[[int], bool], *, labelled: bool, ascii: bool
) -> Text:
    text = Text(" ")
    if not bed:
        empty = t("tui.board.empty")
        return text.append(f"{BED_KEYS[index]} {empty}" if labelled else empty, style=_DIM)
    for card in bed[:-1]:
        text.append_text(card_text(card, ascii=ascii))
        text.append(" ")
    front = bed[-1]
    playable = legal(front)
    if labelled:
        text.append(BED_KEYS[index], style=_LEGAL if playable else _WAITING)
    else:
        text.append("▸", style=_DIM)  # the front card, marked even without labels
    text.append(" ")
    text.append_text(card_text(front, ascii=ascii, extra="underline"))
    return text


def render_code(code: str) -> Text:
    """A room code drawn in boxes, one character each, to read out over the phone."""
    top, middle, bottom = Text(), Text(), Text()
    for char in code:
        top.append("╭───╮")
        middle.append("│ ")
        middle.append(char, style="bold")
        middle.append(" │")
        bottom.append("╰───╯")
    return Text("\n").join([top, middle, bottom])
