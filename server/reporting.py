"""``report``: a player points the operator at a finished race of theirs.

A report needs the store (was the race theirs? reported already? how many
today?), so it waits as a ``hello`` does (:mod:`server.waiting`): what the
connection says next is handled after it, in order. The store decides in one
transaction (:func:`server.store.marks.report`), on whichever worker the
player's home is: every worker shares the store. The answer is ``reported``,
or the error the store's transaction refused with (``game_not_found``,
``not_allowed``, ``rate_limited``), or ``unavailable`` while the store fails.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from core.events import Refused
from protocol import Reported
from server.store import StoreError, StoreRefused
from server.store.marks import report

from .conn import error

if TYPE_CHECKING:
    from protocol import Report

    from .app import AnyConn, GameServer

__all__ = ["Reports"]

log = logging.getLogger("flowergarden.server")


class Reports:
    """The reports of one server's players."""

    def __init__(self, server: GameServer) -> None:
        self._server = server

    def begin(self, conn: AnyConn, message: Report) -> None:
        """``conn``'s player reports a race: hold what comes next until the store has answered."""
        self._server.waits.hold(conn, self._report(conn, message), "reporting")

    async def _report(self, conn: AnyConn, message: Report) -> None:
        server, player = self._server, conn.player
        assert player is not None, "a report comes after hello"
        script = report(message.game_id, player.player_id, message.reason, time.time())
        try:
            reported = await server.store.run(script)
        except Refused as refused:
            server.reception.error(conn, error(refused.code, refused.message, message.id))
            return
        except StoreRefused:  # the same report, at the same moment, through another worker
            words = "you have reported that race already"
            server.reception.error(conn, error("not_allowed", words, message.id))
            return
        except StoreError as exc:
            log.error("could not keep %s's report of %s: %s", player.name, message.game_id, exc)
            words = "reports cannot be kept now; try again"
            server.reception.error(conn, error("unavailable", words, message.id))
            return
        log.info("%s reported %s in race %s", player.name, reported, message.game_id)
        conn.send(Reported(game_id=message.game_id, id=message.id))
