"""``python -m protocol.conformance.transcript URL``: one whole session, as the wire says it.

Three players (``ann``, ``bob`` and a spectator, ``cat``) go through what a
client meets: hello and welcome, errors, seek, seeking, game_start, plays, a
spectator's watch, a dropped connection and its resume with the token, the
race to game_over, a rematch. It prints every frame sent (``→``) and received
(``←``) in order, with a ``#`` line saying what happens before each step; the
played events of the long race in the middle are counted rather than shown,
and boards after the first are cut to ``"…"``. docs/clients.md is its output
against a fresh server. The names must be free: run it on a server of your own.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field
from typing import Any

from .races import RULES
from .wire import Log, Peer, Racer

__all__ = ["Speaker", "Transcript", "session"]

QUIET = frozenset({"play", "played", "error"})
"""What a quiet race leaves out: its plays, and the refusal of a play that came too late."""


@dataclass
class Transcript:
    lines: list[str] = field(default_factory=list)
    quiet: bool = False
    """Leave a race's plays out, counting them in ``hidden``."""
    hidden: int = 0
    boards_shown: bool = False
    """Whether one message with boards was shown whole: later ones are cut."""


class Speaker(Peer):
    """A peer whose every frame goes into the shared transcript."""

    def __init__(self, peer: Peer, transcript: Transcript) -> None:
        super().__init__(peer.ws, peer.log, peer.name)
        self.transcript = transcript

    def _say(self, arrow: str, frame: str) -> None:
        told = self.transcript
        message = json.loads(frame)
        if told.quiet and message.get("type") in QUIET:
            told.hidden += 1
            return
        if "boards" in message:
            if told.boards_shown:
                message["boards"] = "…"
            told.boards_shown = True
        told.lines.append(
            f"{self.name} {arrow} {json.dumps(message, ensure_ascii=False, separators=(',', ':'))}"
        )

    async def send(self, **fields: Any) -> None:
        await self.send_raw(json.dumps(fields, separators=(",", ":")))

    async def send_raw(self, frame: str) -> None:
        try:
            self._say("→", frame)
        except ValueError:  # not JSON, on purpose
            self.transcript.lines.append(f"{self.name} → {frame}")
        await super().send_raw(frame)

    async def recv(self, *types: str, timeout: float = 5.0) -> dict[str, Any]:
        message = await super().recv(*types, timeout=timeout)
        self._say("←", self.log.frames[-1])
        return message


async def _join(url: str, name: str, transcript: Transcript) -> Speaker:
    return Speaker(await Peer.open(url, Log(), name), transcript)


async def _play_out(peer: Speaker, start: dict[str, Any]) -> None:
    """Play legal cards until game_over (the transcript's long race)."""
    racer = Racer(start["boards"][start["seat"]], start["rules"]["redeals"])
    while True:
        card = racer.next_play()
        if card is not None:
            await peer.send(type="play", card=card)
        while True:
            message = await peer.recv()
            if message["type"] == "game_over":
                if card is not None:
                    await peer.recv("error")
                return
            if message["type"] == "played" and message["seat"] == start["seat"]:
                racer.played(message["card"])
                break


async def session(url: str) -> list[str]:
    """The transcript's lines."""
    told = Transcript()
    ann, bob, cat = [await _join(url, name, told) for name in ("ann", "bob", "cat")]
    start_a, start_b = await _opening(told, ann, bob)
    ann, start_a = await _watch_and_resume(url, told, (ann, bob, cat), start_a)
    await _ending(told, (ann, bob, cat), start_a, start_b)
    for peer in (ann, bob, cat):
        await peer.close()
    return told.lines


async def _opening(told: Transcript, ann: Speaker, bob: Speaker) -> tuple[dict[str, Any], ...]:
    note = told.lines.append
    note("# ann says hello; keep the token in welcome: it is the only way back.")
    await ann.hello()
    note("# A frame that is not JSON, then an unknown type: errors; the connection stays open.")
    await ann.send_raw('{"type":"seek",')
    await ann.recv("error")
    await ann.send(type="dance", id=1)
    await ann.recv("error")
    note("# ann seeks a race; seeking comes back with every rule filled in.")
    await ann.send(type="seek", rules=RULES, id="s1")
    await ann.recv("seeking")
    note("# bob says hello and seeks the same rules: both are sent game_start, seq 0.")
    await bob.hello()
    await bob.send(type="seek", rules=RULES)
    start_b = (await bob.until("game_start"))[-1]
    start_a = await ann.recv("game_start")
    racer = Racer(start_a["boards"][start_a["seat"]], 0)
    buried = next(c for bed in racer.board.beds for c in bed if c not in racer.board.legal_plays())
    note("# A card that cannot be played now: illegal_move, to the mover only.")
    await ann.send(type="play", card=str(buried), id="p1")
    await ann.recv("error")
    note("# A legal play: played goes to both players, the mover's copy is the acknowledgement.")
    await ann.send(type="play", card=racer.next_play())
    await ann.recv("played")
    await bob.recv("played")
    return start_a, start_b


async def _watch_and_resume(
    url: str, told: Transcript, peers: tuple[Speaker, ...], start: dict[str, Any]
) -> tuple[Speaker, dict[str, Any]]:
    """cat watches, ann drops and comes back: her new connection, and her race as it stands."""
    note = told.lines.append
    ann, bob, cat = peers
    note("# cat watches the race: game_state without a seat, then every event.")
    await cat.hello()
    await cat.send(type="watch", game_id=start["game_id"], id="w")
    await cat.recv("game_state")
    note("# ann's connection drops: bob is told how long she has to come back.")
    await ann.close()
    await bob.recv("opponent_away")
    note("# ann comes back with her token: welcome, then the whole race in game_state.")
    ann = await _join(url, "ann", told)
    await ann.hello(token=start_token(told.lines))
    resumed = await ann.recv("game_state")
    await bob.recv("opponent_back")
    return ann, {**start, "boards": resumed["boards"]}


async def _ending(
    told: Transcript, peers: tuple[Speaker, ...], start_a: dict[str, Any], start_b: dict[str, Any]
) -> None:
    note = told.lines.append
    ann, bob, cat = peers
    note("# They race to the end; game_over reveals the seeds, to verify the deal.")
    mark, told.quiet = len(told.lines), True
    await asyncio.gather(_play_out(ann, start_a), _play_out(bob, start_b), cat.until("game_over"))
    told.lines.insert(mark, f"# … {told.hidden} plays and played events, left out here …")
    told.quiet = False
    note("# A rematch: ann asks, bob is told, bob asks too: a new race, same rules.")
    await ann.send(type="rematch", id="r1")
    await bob.recv("rematch_offered")
    await bob.send(type="rematch")
    await bob.recv("game_start")
    await ann.until("game_start")
    note("# ann resigns: her status, then game_over, to both.")
    await ann.send(type="resign")
    await ann.until("game_over")
    await bob.until("game_over")


def start_token(lines: list[str]) -> str:
    """ann's token, from her first welcome in the transcript."""
    welcome = next(line for line in lines if line.startswith('ann ← {"type":"welcome"'))
    token: str = json.loads(welcome.split(" ", 2)[2])["token"]
    return token


if __name__ == "__main__":
    print("\n".join(asyncio.run(session(sys.argv[1]))))
