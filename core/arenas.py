"""The arenas desk of the lobby: ``join_arena``, ``leave_arena``, pairing, scores and standings.

An arena (PROTOCOL.md, "Arenas") is a tournament of races over a fixed time.
The operator schedules it and the glue gives it to the lobby
(:class:`~core.arena_state.ScheduledArena`: its times on the cores' clock, and
as the wire shows them); a recurring schedule is the glue's. Players join a
running or upcoming arena and leave it when they like; a race being raced
goes on when its player leaves.

While an arena runs, its joined players who are online and not racing are
paired as soon as two are free (:func:`~core.arena_rules.pairings`): when it
starts, when one joins or comes back, when a race ends. A race with rated
rules is rated only where the rated rules allow the pair (:mod:`core.rated`),
unrated otherwise; a player the rated rules bar from every rated race cannot
join a rated arena. When a race the arena paired ends, its points
(:func:`~core.arena_rules.scored`) go into ``game_over.arena`` and the
standings. When the time is up no new race is paired; races still running
count when they end; then the arena is finished, and leaves the lobby.

The standings go to the joined players (one ``arena`` message each, with their
own place) at most once every :data:`PUSH_EVERY` seconds when they change, and
when the arena starts and when it finishes. A change only sets the desk's timer
for the arena (:data:`ARENA_TIMER` and its id), at once if the last push is a
second old: the push is a call of its own, so a race's end (and its
``game_over``) never waits behind a thousand ``arena`` messages. Each change
the store must keep comes as an :class:`~core.events.ArenaChanged` before the
messages that show it; an arena is rebuilt from what was kept by
:meth:`Arenas.restore`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from protocol import ArenaResult

from .arena_rules import Outcome, pairings, scored
from .arena_state import ArenaState, Entrant
from .events import ArenaChanged, Output, Refused, Send, Wake
from .race_kind import RaceKind

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from protocol import ArenaInfo

    from .arena_state import ScheduledArena
    from .lobby_player import LobbyHost, LobbyPlayer
    from .race import Race

__all__ = ["ARENA_TIMER", "PUSH_EVERY", "Arenas"]

ARENA_TIMER = "arena:"
"""The prefix of an arena's timer's key (``arena:`` and its id) among the lobby's timers."""
PUSH_EVERY = 1.0
"""Seconds at least between two pushes of an arena's standings as they change."""


class Arenas:
    """Every arena of one lobby, by id (see the module docstring)."""

    def __init__(self, host: LobbyHost, check_rated: Callable[[LobbyPlayer], None]) -> None:
        """``check_rated`` raises ``not_allowed`` for a player barred from rated races."""
        self._host, self._check_rated = host, check_rated
        self._arenas: dict[str, ArenaState] = {}

    # -- the glue's inputs -------------------------------------------------------

    def schedule(self, spec: ScheduledArena, now: float) -> list[Output]:
        """An arena the operator scheduled (again: its new times and rules, same players)."""
        held = self._arenas.get(spec.arena_id)
        if held is not None:
            held.spec = spec
            return self._advanced(held, now)
        arena = self._arenas[spec.arena_id] = ArenaState(spec, "upcoming")
        return self._advanced(arena, now)

    def restore(
        self, spec: ScheduledArena, entrants: Iterable[Entrant], races: Iterable[Race], now: float
    ) -> list[Output]:
        """An arena as the store kept it; ``races``: the lobby's live races (its own are
        counted as running). Its joined players are offline until they come back."""
        racing = [race.game_id for race in races if race.kind.arena_id == spec.arena_id]
        arena = ArenaState.restored(spec, entrants, racing, now)
        self._arenas[spec.arena_id] = arena
        for entrant in arena.entrants.values():
            if entrant.joined:
                self._host.known(entrant.player_id, entrant.name).arena = spec.arena_id
        return self._advanced(arena, now)

    def adopt(self, race: Race) -> None:
        """A live race restored after its arena: it runs for the arena until it ends."""
        arena = self._arenas.get(race.kind.arena_id or "")
        if arena is not None:
            arena.racing.add(race.game_id)

    def has(self, arena_id: str) -> bool:
        return arena_id in self._arenas

    def listed(self) -> list[ArenaInfo]:
        """``lobby.arenas``: the upcoming and running arenas, soonest first."""
        arenas = sorted(self._arenas.values(), key=lambda arena: arena.spec.starts)
        return [arena.info() for arena in arenas]

    # -- players' commands -------------------------------------------------------

    def join(self, player: LobbyPlayer, arena_id: str, now: float) -> list[Output]:
        """``player`` joins an arena (leaving any other): the ``arena`` reply, then pairing."""
        arena = self._arenas.get(arena_id)
        if arena is None or arena.phase in ("ending", "finished"):
            raise Refused("game_not_found", f"no running or upcoming arena has the id {arena_id!r}")
        if player.seeking is not None or player.room is not None:
            raise Refused("busy", "you are seeking a match or have an open room; cancel first")
        if arena.spec.rules.rated:
            self._check_rated(player)
        out = self.leave(player, now) if player.arena not in (None, arena_id) else []
        entrant = arena.entrants.get(player.id)
        if entrant is None:
            entrant = Entrant(player.id, player.name, player.bot, len(arena.entrants))
        arena.entrants[player.id] = entrant = replace(entrant, joined=True)
        player.arena = arena_id
        arena.free.add(player.id)
        out += [ArenaChanged(arena_id, arena.status, (entrant,)), self._reply(arena, player.id)]
        return [*out, *self._paired(arena, now), self._changed(arena)]

    def leave(self, player: LobbyPlayer, now: float) -> list[Output]:
        """``player`` leaves their arena: no more races there; one being raced goes on."""
        arena = self._arenas.get(player.arena or "")
        if arena is None:
            raise Refused("not_in_game", "you are in no arena")
        player.arena = None
        arena.free.discard(player.id)
        entrant = arena.entrants[player.id] = replace(arena.entrants[player.id], joined=False)
        out: list[Output] = [ArenaChanged(arena.spec.arena_id, arena.status, (entrant,))]
        return [*out, self._reply(arena, player.id), self._changed(arena)]

    def came_back(self, player: LobbyPlayer, now: float) -> list[Output]:
        """``player`` is online and free again: paired, if their arena runs."""
        arena = self._freed(player)
        return [] if arena is None else self._paired(arena, now)

    def _freed(self, player: LobbyPlayer | None) -> ArenaState | None:
        """``player``, if online and not racing, may be paired in their arena: which."""
        if player is None or not player.online or player.race is not None:
            return None
        arena = self._arenas.get(player.arena or "")
        if arena is not None:
            arena.free.add(player.id)
        return arena

    # -- races and timers --------------------------------------------------------

    def race_over(self, race: Race, now: float) -> tuple[ArenaResult | None, list[Output]]:
        """A race has ended and its players are free: its ``game_over.arena`` if an arena
        paired it, and what follows (its scores written, standings, new pairings)."""
        result: ArenaResult | None = None
        out: list[Output] = []
        arena = self._arenas.get(race.kind.arena_id or "")
        if arena is not None:
            arena.racing.discard(race.game_id)
            result, entrants = self._score(arena, race)
            out += [ArenaChanged(arena.spec.arena_id, arena.status, entrants)]
            arena.dirty = True
        # Both players are free before either is paired: neither is "alone" with
        # someone who waits while the other is still being freed.
        freed = [self._freed(self._host.held(player_id)) for player_id in race.player_ids]
        for held in {a.spec.arena_id: a for a in freed if a is not None}.values():
            out += self._paired(held, now)
        if arena is not None:
            out += self._advanced(arena, now)
        return result, out

    def due(self, key: str, now: float) -> list[Output] | None:
        """Apply the timer ``key`` at ``now``, if it is an arena's; else None."""
        if not key.startswith(ARENA_TIMER):
            return None
        arena = self._arenas.get(key[len(ARENA_TIMER) :])
        if arena is None:
            return [Wake(key, None)]
        out = self._push(arena, now) if self._push_due(arena, now) else []
        return [*out, *self._advanced(arena, now)]

    # -- internals ---------------------------------------------------------------

    def _advanced(self, arena: ArenaState, now: float) -> list[Output]:
        """Move ``arena`` on to where ``now`` puts it, and set its timer."""
        out: list[Output] = []
        arena_id = arena.spec.arena_id
        if arena.phase == "upcoming" and now >= arena.spec.starts:
            arena.phase = "running"
            out += [ArenaChanged(arena_id, "running"), *self._push(arena, now)]
            out += self._paired(arena, now)
        if arena.phase == "running" and now >= arena.spec.ends:
            arena.phase = "ending"
        if arena.phase == "ending" and not arena.racing:
            return [*out, *self._finish(arena, now)]
        return [*out, Wake(ARENA_TIMER + arena_id, arena.next_due(PUSH_EVERY))]

    def _finish(self, arena: ArenaState, now: float) -> list[Output]:
        """Every race has ended: the standings are final, and the arena leaves the lobby."""
        arena.phase = "finished"
        arena_id = arena.spec.arena_id
        del self._arenas[arena_id]
        out: list[Output] = [ArenaChanged(arena_id, "finished"), *self._push(arena, now)]
        for entrant in arena.entrants.values():
            player = self._host.held(entrant.player_id)
            if player is not None and player.arena == arena_id:
                player.arena = None
        return [*out, Wake(ARENA_TIMER + arena_id, None)]

    @staticmethod
    def _changed(arena: ArenaState) -> Wake:
        """The standings changed: they go out when the timer allows."""
        arena.dirty = True
        return Wake(ARENA_TIMER + arena.spec.arena_id, arena.next_due(PUSH_EVERY))

    @staticmethod
    def _push_due(arena: ArenaState, now: float) -> bool:
        """Whether ``arena``'s changed standings may go out at ``now``."""
        if not arena.dirty or arena.phase not in ("running", "ending"):
            return False
        # The same sum as the timer's (ArenaState.next_due), not a difference: a timer
        # that falls at ``pushed + PUSH_EVERY`` must find the push due.
        return arena.pushed is None or now >= arena.pushed + PUSH_EVERY

    def _push(self, arena: ArenaState, now: float) -> list[Output]:
        """The standings to every joined player online, each with their own place."""
        arena.pushed, arena.dirty = now, False
        standings, ranks = arena.standings()
        message = arena.message(standings, arena.players())
        return [
            Send((entrant.player_id,), arena.yours(message, entrant.player_id, ranks))
            for entrant in arena.entrants.values()
            if entrant.joined and self._online(entrant.player_id)
        ]

    def _reply(self, arena: ArenaState, player_id: str) -> Send:
        """The ``arena`` reply to ``join_arena`` or ``leave_arena``."""
        standings, ranks = arena.standings()
        message = arena.message(standings, arena.players())
        return Send((player_id,), arena.yours(message, player_id, ranks))

    def _online(self, player_id: str) -> bool:
        player = self._host.held(player_id)
        return player is not None and player.online

    def _paired(self, arena: ArenaState, now: float) -> list[Output]:
        """Start a race for every pair of its free players, if the arena runs."""
        if arena.phase != "running":
            return []
        free = [player for player in map(self._host.held, arena.free) if player is not None]
        free = [player for player in free if self._free(arena, player)]
        arena.free = {player.id for player in free}
        if len(free) < 2:
            return []
        ratings = {player.id: player.rating.rating for player in free}
        candidates = [
            arena.candidate(arena.entrants[pid], rating) for pid, rating in ratings.items()
        ]
        pairs = pairings(candidates)
        arena.free -= {player_id for pair in pairs for player_id in pair}
        out: list[Output] = []
        for first, second in pairs:
            out += self._start(arena, self._host.player(first), self._host.player(second), now)
        return out

    def _free(self, arena: ArenaState, player: LobbyPlayer) -> bool:
        """Whether ``player`` may be paired in ``arena`` now."""
        return player.online and player.race is None and player.arena == arena.spec.arena_id

    def _start(
        self, arena: ArenaState, first: LobbyPlayer, second: LobbyPlayer, now: float
    ) -> list[Output]:
        """A race of ``arena`` between two free players, rated where the rules allow it."""
        rules = arena.spec.rules
        if rules.rated and not self._host.allows_rated(first.id, second.id, now):
            rules = rules.model_copy(update={"rated": False})
        kind = RaceKind(arena_id=arena.spec.arena_id)
        _race, started = self._host.start(
            first, second, rules, now, kind=kind, made=lambda race: arena.racing.add(race.game_id)
        )
        return started

    def _score(self, arena: ArenaState, race: Race) -> tuple[ArenaResult, tuple[Entrant, ...]]:
        """``race``'s points for each seat, into the standings; the entrants it changed.

        An aborted race (its journal did not replay) scores nothing and counts for no one.
        """
        over = race.over
        assert over is not None
        if over.reason == "aborted":
            return ArenaResult(arena_id=arena.spec.arena_id, points=[0, 0]), ()
        points, changed = [0, 0], []
        for seat, player_id in enumerate(race.player_ids):
            entrant = arena.entrants.get(player_id)
            if entrant is None:  # not one of its players: nothing to score
                continue
            outcome: Outcome = (
                "draw" if over.winner is None else "win" if over.winner == seat else "loss"
            )
            evidence = race.fair_play[seat]
            gained, streak = scored(
                outcome, entrant.streak, evidence is not None and evidence.flagged
            )
            points[seat] = gained
            entrant = replace(
                entrant, score=entrant.score + gained, streak=streak, races=entrant.races + 1,
                last_opponent=race.player_ids[1 - seat],
            )  # fmt: skip
            arena.entrants[player_id] = entrant
            changed.append(entrant)
        return ArenaResult(arena_id=arena.spec.arena_id, points=points), tuple(changed)
