"""What the client asked the server's HTTP API, and what it answered: a plain model.

Theory of operation
-------------------
A screen that needs something from the API posts a
:class:`~client.messages.Fetch` with a query (:data:`Query`): the leaderboard,
a player's profile, a page of a player's races, a race's record, today's
daily board. The app asks
:class:`Lookups` first (:meth:`Lookups.ask` marks the query pending, and says
no when the same one is pending already), runs :func:`answer` in a worker,
and hands the answer or the error back (:meth:`Lookups.answered`,
:meth:`Lookups.failed`); the screens only read what is here. Each thing looked
up is a :class:`Lookup`: its value (kept while it is asked again, so a refresh
does not blank the screen), whether an answer is awaited, and the last error
in words. A race's record becomes a :class:`~client.replay.Replay` as it
arrives, set to play from that moment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeAlias, TypeVar

from protocol import GameOver, GameStart, GameState, LobbySnapshot

from .apidata import DailyBoard, Leaderboard, Profile, RacePage, RaceRecordData, RaceSummary
from .replay import Replay, ReplayError

if TYPE_CHECKING:
    from protocol import ServerMessage

    from .api_client import ApiClient
    from .state import ClientState

__all__ = [
    "DailyQuery",
    "History",
    "HistoryQuery",
    "LeaderboardQuery",
    "Lookup",
    "Lookups",
    "ProfileQuery",
    "Query",
    "RaceQuery",
    "answer",
    "queries_after",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LeaderboardQuery:
    limit: int = 50


@dataclass(frozen=True, slots=True)
class ProfileQuery:
    name: str


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """A page of ``name``'s races: the newest (``before`` None), or those older than ``before``."""

    name: str
    before: str | None = None


@dataclass(frozen=True, slots=True)
class RaceQuery:
    game_id: str


@dataclass(frozen=True, slots=True)
class DailyQuery:
    """Today's deal and its board."""


Query: TypeAlias = LeaderboardQuery | ProfileQuery | HistoryQuery | RaceQuery | DailyQuery
Answer: TypeAlias = Leaderboard | Profile | RacePage | RaceRecordData | DailyBoard


async def answer(api: ApiClient, query: Query) -> Answer:
    """Ask the API what ``query`` asks; :class:`~client.api_client.ApiError` if it cannot answer."""
    if isinstance(query, LeaderboardQuery):
        return await api.leaderboard(query.limit)
    if isinstance(query, ProfileQuery):
        return await api.player(query.name)
    if isinstance(query, HistoryQuery):
        return await api.races(query.name, before=query.before)
    if isinstance(query, DailyQuery):
        return await api.daily()
    return await api.race(query.game_id)


def queries_after(state: ClientState, message: ServerMessage) -> list[Query]:
    """What to ask the API once ``message`` is applied: who is provisional (the profiles of
    a rated race's players, one's own after it), and the lobby's Daily entry (the day's board
    and one's streak, when the lobby first lists a day's deal and after each daily race)."""
    race, me = state.race, state.name
    rated = isinstance(message, GameStart | GameState) and any(
        rating is not None for rating in message.ratings
    )
    if rated and race is not None:
        players = zip(race.players, race.bots or [False] * 2, strict=False)
        return [ProfileQuery(name) for name, bot in players if not bot]
    asked: list[Query] = []
    if isinstance(message, GameOver) and (message.ratings is not None or message.daily) and me:
        asked.append(ProfileQuery(me))
    known = state.lookups.daily
    day = None if known.value is None else known.value.date
    if isinstance(message, LobbySnapshot) and message.daily is not None:
        if message.daily.date != day and not known.error:  # a new day, or none asked yet
            asked += [DailyQuery(), *([ProfileQuery(me)] if me else [])]
    elif isinstance(message, GameOver) and message.daily is not None:
        asked.append(DailyQuery())
    return asked


@dataclass(slots=True)
class Lookup(Generic[T]):
    """One thing looked up: its value as last answered, whether an answer is awaited, the error."""

    value: T | None = None
    pending: bool = False
    error: str = ""


@dataclass(slots=True)
class History:
    """A player's finished races, newest first, as far as the pages fetched go."""

    name: str
    races: list[RaceSummary] = field(default_factory=list)
    next: str | None = None
    """The cursor to the next, older page; None when there is none (or none fetched yet)."""
    loaded: bool = False
    """The first page came."""
    pending: bool = False
    error: str = ""

    @property
    def more(self) -> bool:
        return self.loaded and self.next is not None


def _key(name: str) -> str:
    return name.casefold()  # names are unique ignoring case


class Lookups:
    """Everything fetched from the API; see the module docstring."""

    def __init__(self) -> None:
        self.leaderboard: Lookup[Leaderboard] = Lookup()
        self.profiles: dict[str, Lookup[Profile]] = {}
        self.histories: dict[str, History] = {}
        self.races: dict[str, Lookup[Replay]] = {}
        self.daily: Lookup[DailyBoard] = Lookup()

    def profile(self, name: str) -> Lookup[Profile]:
        return self.profiles.setdefault(_key(name), Lookup())

    def known(self, name: str) -> Profile | None:
        """``name``'s profile as last answered, or None (asks nothing)."""
        found = self.profiles.get(_key(name))
        return None if found is None else found.value

    def history(self, name: str) -> History:
        return self.histories.setdefault(_key(name), History(name))

    def race(self, game_id: str) -> Lookup[Replay]:
        return self.races.setdefault(game_id, Lookup())

    def _status(
        self, query: Query
    ) -> Lookup[Leaderboard] | Lookup[Profile] | Lookup[Replay] | Lookup[DailyBoard] | History:
        """Where the answer to ``query`` goes: whether it is awaited, its error."""
        if isinstance(query, DailyQuery):
            return self.daily
        if isinstance(query, HistoryQuery):
            return self.history(query.name)
        if isinstance(query, LeaderboardQuery):
            return self.leaderboard
        if isinstance(query, ProfileQuery):
            return self.profile(query.name)
        assert isinstance(query, RaceQuery)
        return self.race(query.game_id)

    def ask(self, query: Query) -> bool:
        """Mark ``query`` as asked; False if it is asked already (do not ask twice)."""
        status = self._status(query)
        if status.pending:
            return False
        status.pending, status.error = True, ""
        return True

    def failed(self, query: Query, words: str) -> None:
        status = self._status(query)
        status.pending, status.error = False, words

    def answered(self, query: Query, answer: Answer, now: float) -> None:
        """Keep what the API answered to ``query`` (a race's record: its replay, from ``now``)."""
        if isinstance(query, HistoryQuery):
            assert isinstance(answer, RacePage)
            self._page(query, answer)
        elif isinstance(answer, Leaderboard):
            self.leaderboard = Lookup(answer)
        elif isinstance(answer, DailyBoard):
            self.daily = Lookup(answer)
        elif isinstance(answer, Profile):
            self.profiles[_key(query.name if isinstance(query, ProfileQuery) else answer.name)] = (
                Lookup(answer)
            )
        else:
            assert isinstance(query, RaceQuery) and isinstance(answer, RaceRecordData)
            try:
                self.races[query.game_id] = Lookup(Replay.of(answer, now))
            except ReplayError as exc:
                self.failed(query, str(exc))

    def _page(self, query: HistoryQuery, page: RacePage) -> None:
        history = self.history(query.name)
        if query.before is None:  # the newest page: the list starts again from it
            history.races = []
        seen = {race.game_id for race in history.races}
        history.races.extend(race for race in page.races if race.game_id not in seen)
        history.next, history.loaded, history.pending = page.next, True, False
