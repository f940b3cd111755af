"""The daily deal and arenas, from the terminal: what the client keeps of them, in words.

Theory of operation
-------------------
The lobby lists today's deal (``lobby.daily``: how many raced it, the best time)
and the arenas (``lobby.arenas``). One's place on the day's board comes from the
HTTP API (``GET /api/daily``, :class:`~client.apidata.DailyBoard`) and one's
streak from one's profile (``daily_streak``); the app asks for both when the
lobby first shows a daily deal, and again after each daily race. ``daily``
starts a race at once against the ghost: seat 1, the day's best clear so far
replayed card by card at its own times, labelled a bot like any bot (its board
fills in at the leader's pace because the server plays it so). ``game_over.daily``
says whether the race was the ranked one and its rank.

Joining an arena (``join_arena``) is answered ``arena``, sent again whenever the
standings change; :class:`ArenaView` keeps the last one, with its start and end
put on the client's own clock when it came (the wire gives moments, the screens
count down on ``now``). After each race the server pairs the player again at
once; ``leave_arena`` (the "pause" key) stops that, and the answer says
``joined: false``.

Everything here is pure: the state and the screens call it with ``now``.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

import lang
from lang import t

from .render import player_names
from .timing import clock_text, seconds_text

if TYPE_CHECKING:
    from protocol import Arena, ArenaInfo, DailyInfo

    from .apidata import DailyBoard
    from .race_view import RaceView
    from .state import ClientState

__all__ = [
    "ArenaView",
    "arena_line",
    "arena_result_words",
    "arena_rows",
    "daily_line",
    "daily_result_words",
    "epoch",
    "events_text",
    "ordinal",
    "race_kind_line",
    "standings_line",
]

_DIM = "#7a7a7a"


def epoch(moment: str) -> float:
    """A wire moment (RFC 3339: ``2025-06-01T18:00:00Z``) in seconds since the epoch."""
    return datetime.datetime.fromisoformat(moment).timestamp()


def ordinal(rank: int) -> str:
    """A place on a board: ``3rd`` in English, ``3.`` in German, ``3e`` in Dutch, ``3º``
    in Italian (the catalogue's ``place.rank``; English's endings are its own)."""
    if lang.language() not in ("en", lang.PSEUDO):
        return t("tui.place.rank", rank=str(rank))
    if 10 <= rank % 100 <= 20:
        return f"{rank}th"
    return f"{rank}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(rank % 10, 'th') }"


@dataclass(frozen=True, slots=True)
class ArenaView:
    """The last ``arena`` message, its start and end on the client's clock."""

    arena: Arena
    starts_at: float
    ends_at: float

    @classmethod
    def of(cls, arena: Arena, now: float, wall: float) -> ArenaView:
        """``arena`` as it came at ``now`` on the client's clock, ``wall`` on the epoch's."""
        offset = now - wall
        return cls(arena, epoch(arena.starts_at) + offset, epoch(arena.ends_at) + offset)

    @property
    def joined(self) -> bool:
        return self.arena.joined and self.arena.status != "finished"

    def when(self, now: float) -> str:
        """``ends in 12:34``, ``starts in 4:59``, or ``finished``."""
        status = self.arena.status
        if status == "finished":
            return t("tui.arena.finished")
        if status == "upcoming" and now < self.starts_at:
            return t("tui.arena.starts_in", left=clock_text(self.starts_at - now))
        return t("tui.arena.ends_in", left=clock_text(max(0.0, self.ends_at - now)))


def arena_line(view: ArenaView, now: float) -> Text:
    """The arena one is in, on one line: one's place and points, the countdown, the key."""
    arena, you = view.arena, view.arena.you
    text = Text(t("tui.arena.name", name=arena.name), style="bold")
    if you is not None:
        place = ordinal(you.rank)
        text.append(
            ": " + t("tui.arena.place", place=place, players=arena.players, count=you.score)
        )
        if you.streak >= 2:  # lichess's streak: wins count double (the help says so)
            text.append(" · " + t("tui.arena.streak"), style="bold green")
    else:
        text.append(": " + t("tui.arena.joined", count=arena.players))
    text.append(f" · {view.when(now)}")
    if view.joined:
        text.append(f"  z {t('tui.key.pause')}", style=_DIM)
    elif arena.status != "finished":
        text.append("  " + t("tui.arena.paused"), style=_DIM)
    return text


def standings_line(arena: Arena, me: str, *, places: int = 5) -> Text:
    """The first few places: ``1 bob 12 · 2 ann 8 · 3 BOT-Hare (bot) 6``; one's own bold."""
    text = Text(t("tui.arena.standings") + " ", style=_DIM)
    if not arena.standings:
        return text.append(t("tui.arena.no_race_yet"), style=_DIM)
    for i, place in enumerate(arena.standings[:places]):
        if i:
            text.append(" · ", style=_DIM)
        name = player_names([place.name], [place.bot])[0]
        mine = place.name.casefold() == me.casefold()
        text.append(f"{place.rank} {name} {place.score}", style="bold" if mine else "")
    return text


def arena_rows(arenas: list[ArenaInfo], now: float, wall: float) -> list[tuple[str, list[str]]]:
    """The arenas list's rows (key, cells): name, status, countdown, players."""
    rows = []
    for info in arenas:
        view_when = _arena_when(info, now, wall)
        status = t(f"tui.arena.status_{info.status}")
        rows.append((info.arena_id, [info.name, status, view_when, str(info.players)]))
    return rows


def _arena_when(info: ArenaInfo, now: float, wall: float) -> str:
    offset = now - wall
    if info.status == "upcoming":
        return t("tui.arena.starts_in", left=clock_text(epoch(info.starts_at) + offset - now))
    if info.status == "running":
        return t("tui.arena.ends_in", left=clock_text(epoch(info.ends_at) + offset - now))
    return t("tui.arena.finished")


def daily_line(
    daily: DailyInfo | None, board: DailyBoard | None, me: str, streak: int | None
) -> Text:
    """The lobby's Daily entry: the day, its best time, one's place and streak, the key."""
    if daily is None:
        return Text()
    text = Text(t("tui.daily.title"), style="bold")  # today's: the day is on its board (t)
    if daily.best_ms is not None:
        best = seconds_text(daily.best_ms)
        text.append(": " + t("tui.daily.best", time=best, count=daily.players))
    else:
        text.append(": " + t("tui.daily.no_best", count=daily.players))
    place = None if board is None or board.date != daily.date else board.place(me)
    if place is not None:
        text.append(" · " + t("tui.daily.you", place=ordinal(place.rank)))
    if streak:
        text.append(" · " + t("tui.daily.streak", count=streak))
    return text.append(f"  d {t('tui.daily.race_ghost')}", style=_DIM)


def events_text(state: ClientState, now: float) -> Text:
    """The lobby's lines of the daily deal and the arenas (nothing on a server without)."""
    lobby = state.lobby
    if lobby is None:
        return Text()
    profile = state.lookups.known(state.name) if state.name else None
    streak = None if profile is None else profile.daily_streak
    text = daily_line(lobby.daily, state.lookups.daily.value, state.name, streak)
    arena = state.arena
    line = Text()
    if arena is not None and arena.arena.status != "finished" and arena.arena.joined:
        line = arena_line(arena, now)
    elif lobby.arenas:
        running = sum(info.status == "running" for info in lobby.arenas)
        line = Text(t("tui.arena.list_line", running=running, coming=len(lobby.arenas) - running))
        line.append(f"  a {t('tui.arena.list_key')}", style=_DIM)
    if text.plain and line.plain:
        text.append("\n")
    return text.append_text(line)


def race_kind_line(race: RaceView, now: float, arena: ArenaView | None, me: str) -> Text:
    """Over the boards while the race runs: what kind of race this is (daily, arena), or
    nothing. Once it is over the result says it, and needs the lines (80x24)."""
    if race.over is not None:
        return Text()
    if race.daily is not None:
        if race.ghost:
            return Text(t("tui.daily.racing_ghost", day=race.daily, name=race.ghost), style="bold")
        return Text(t("tui.daily.racing_bot", day=race.daily), style="bold")
    if race.arena_id is not None and arena is not None and arena.arena.arena_id == race.arena_id:
        text = arena_line(arena, now)
        return text.append("\n").append_text(standings_line(arena.arena, me, places=4))
    return Text()


def daily_result_words(race: RaceView, board: DailyBoard | None) -> str:
    """A daily race's end: one's time against the leader's, one's rank, the board's key."""
    over = race.over
    if over is None or over.daily is None or race.seat is None:
        return ""
    result = over.daily
    if result.time_ms is None:
        mine = t("tui.daily.not_cleared")
    else:
        mine = t("tui.daily.your_time", time=seconds_text(result.time_ms))
    leader = _leader_ms(race, board)
    parts = [f"{t('tui.daily.title')}: {mine}"]  # the day is the board's (t), and the top's
    if leader is not None:
        parts.append(t("tui.daily.leader", time=seconds_text(leader)))
    if result.ranked and result.rank is not None:
        if board is not None and board.date == result.date:
            parts.append(t("tui.daily.ranked_of", place=ordinal(result.rank), count=board.players))
        else:
            parts.append(t("tui.daily.ranked", place=ordinal(result.rank)))
    else:
        parts.append(t("tui.daily.practice"))
    return " · ".join(parts)


def _leader_ms(race: RaceView, board: DailyBoard | None) -> int | None:
    """The day's best time: the board's first clear, else the ghost's (it replays the best)."""
    over = race.over
    daily = None if over is None else over.daily
    first = board.board[0] if board is not None and board.board else None
    if first is not None and daily is not None and board is not None and board.date == daily.date:
        return first.time_ms
    if race.ghost is not None and over is not None and len(over.times_ms) == 2:
        return over.times_ms[1] if over.counts[1] == 52 else None
    return None


def arena_result_words(race: RaceView, arena: ArenaView | None) -> str:
    """An arena race's end: the points it scored, one's place, what comes next."""
    over = race.over
    if over is None or over.arena is None or race.seat is None:
        return ""
    words = t("tui.arena.scored", count=over.arena.points[race.seat])
    if arena is not None and arena.arena.you is not None:
        you = arena.arena.you
        words += " · " + t("tui.arena.you", place=ordinal(you.rank), count=you.score)
    if arena is not None and arena.joined:
        words += " · " + t("tui.arena.next")
    return words
