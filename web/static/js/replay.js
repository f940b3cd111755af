// A finished race played again from its record (GET /api/races/GAME_ID): the boards as
// dealt, then every move in order, a redeal dealt from the revealed seed by PROTOCOL.md's
// algorithm. frames[k] is both boards after k moves.

import { Board } from "./board.js";
import { redeal } from "./dealing.js";
import { t } from "./i18n.js";
import { seedFromHex } from "./sha256.js";

/** {frames: [{boards, move}], stopped: words or null} for a race record. */
export async function buildReplay(record) {
  const boards = record.boards.map((board) => Board.fromWire(board));
  const frames = [{ boards: boards.map((board) => board.copy()), move: null }];
  const verifiable = record.dealing === undefined || record.dealing === "sha256";
  for (const move of record.moves) {
    const board = boards[move.seat];
    if (!board) return { frames, stopped: t("replay.bad_seat", { seq: move.seq, seat: move.seat }) };
    if (move.card === "redeal") {
      if (!verifiable) return { frames, stopped: t("replay.old_redeal") };
      board.redealAs(await redeal(seedFromHex(record.seeds[move.seat]), board.gathered()));
    } else if (board.isLegal(move.card)) {
      board.play(move.card);
    } else {
      return { frames, stopped: t("replay.misfit", { seq: move.seq, card: move.card, why: board.whyIllegal(move.card) }) };
    }
    frames.push({ boards: boards.map((b) => b.copy()), move });
  }
  return { frames, stopped: null };
}
