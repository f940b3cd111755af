"""The store's SQLite schema, versioned by ``PRAGMA user_version``.

``MIGRATIONS[n]`` takes a file from version n to n + 1; :class:`server.store.sqlite.Database`
runs those a file lacks in one transaction, the same that sets the version, so
an upgrade is whole or not at all. A migration, once released, is never
changed: a new one is added after it.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_MOVES_VIEW = """CREATE VIEW moves (race_id, seq, seat, card, at) AS
    SELECT races.id,
        json_extract(move.value, '$[0]'),
        json_extract(move.value, '$[1]'),
        json_extract(move.value, '$[2]'),
        json_extract(move.value, '$[3]') / 1000.0
    FROM races, json_each(races.moves) AS move"""
"""Each move of each race as a row, as schema version 1 kept them."""

_RACE_COLUMNS = (
    "time0", "time1", "rating0_before", "rating0_after", "rating1_before", "rating1_after",
)  # fmt: skip
"""Each seat's time of its last card (ms), and the ratings of a rated race."""

_LAST_CARD = """UPDATE races SET time%d = (
    SELECT json_extract(move.value, '$[3]') FROM json_each(races.moves) AS move
    WHERE json_extract(move.value, '$[1]') = %d AND json_extract(move.value, '$[2]') != 'redeal'
    ORDER BY json_extract(move.value, '$[0]') DESC LIMIT 1)"""
"""A race's seat's time of its last card, from its moves ([seq, seat, card, ms])."""

_BEST_CLEAR = """UPDATE players SET best_clear_ms = (
    SELECT min(CASE winner WHEN 0 THEN time0 ELSE time1 END) FROM races
    WHERE reason = 'cleared'
    AND ((winner = 0 AND player0 = players.id) OR (winner = 1 AND player1 = players.id)))"""

_JUDGED = ("unrated", "fair_play", "glicko")
"""Why a race with rated rules was unrated, each seat's fair-play evidence (a JSON array),
and both players' full ratings before and after (JSON), which an annul puts back."""

MARKS = """CREATE TABLE marks (
            player_id TEXT NOT NULL REFERENCES players(id),
            race_id TEXT NOT NULL REFERENCES races(id),
            kind TEXT NOT NULL CHECK (kind IN ('flag', 'report')),
            reporter TEXT NOT NULL DEFAULT '',
            reason TEXT,
            at REAL NOT NULL,
            cleared REAL,
            PRIMARY KEY (race_id, kind, reporter, player_id)
        )"""
"""A race that points the operator at a player: its play flagged (``reporter`` empty), or
reported by its other player; ``cleared`` once the operator has cleared the player."""

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 0 -> 1: the first schema.
    (
        """CREATE TABLE players (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL UNIQUE,
            created REAL NOT NULL,
            last_seen REAL NOT NULL,
            games INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0
        )""",
        # Seeds are JSON: a seed may not fit SQLite's 64-bit INTEGER.
        """CREATE TABLE races (
            id TEXT PRIMARY KEY,
            rules TEXT NOT NULL,
            seeds TEXT NOT NULL,
            player0 TEXT NOT NULL REFERENCES players(id),
            player1 TEXT NOT NULL REFERENCES players(id),
            started REAL NOT NULL,
            ended REAL NOT NULL,
            result TEXT NOT NULL,
            winner INTEGER CHECK (winner IN (0, 1)),
            reason TEXT NOT NULL,
            count0 INTEGER NOT NULL,
            count1 INTEGER NOT NULL
        )""",
        "CREATE INDEX races_player0 ON races(player0)",
        "CREATE INDEX races_player1 ON races(player1)",
        """CREATE TABLE moves (
            race_id TEXT NOT NULL REFERENCES races(id),
            seq INTEGER NOT NULL,
            seat INTEGER NOT NULL CHECK (seat IN (0, 1)),
            card TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (race_id, seq)
        ) WITHOUT ROWID""",
    ),
    # 1 -> 2: a race's moves move into its row, as JSON; a view keeps the rows.
    (
        "ALTER TABLE races ADD COLUMN moves TEXT NOT NULL DEFAULT '[]'",
        """UPDATE races SET moves = (
            SELECT json_group_array(json_array(seq, seat, card, CAST(round(at * 1000) AS INTEGER)))
            FROM (SELECT seq, seat, card, at FROM moves WHERE moves.race_id = races.id ORDER BY seq)
        )""",
        "DROP TABLE moves",
        _MOVES_VIEW,
    ),
    # 2 -> 3: live races and their journal. A journal row is one play, so a row
    # each (WITHOUT ROWID: the key is the table); it refers to its live race so
    # that no entry outlives it. ``elapsed`` is set on shutdown only.
    (
        """CREATE TABLE live_races (
            id TEXT PRIMARY KEY,
            rules TEXT NOT NULL,
            seeds TEXT NOT NULL,
            player0 TEXT NOT NULL REFERENCES players(id),
            player1 TEXT NOT NULL REFERENCES players(id),
            started REAL NOT NULL,
            elapsed REAL NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE journal (
            race_id TEXT NOT NULL REFERENCES live_races(id),
            seq INTEGER NOT NULL,
            seat INTEGER NOT NULL CHECK (seat IN (0, 1)),
            what TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (race_id, seq)
        ) WITHOUT ROWID""",
    ),
    # 3 -> 4: the journal becomes a log, its rows in the order they were
    # written. Keyed by race, a commit of plays from many races wrote a page
    # for each race (random ids spread the key over the table); keyed by a
    # rowid, it writes the log's last page or two. AUTOINCREMENT, so that ids
    # only grow: a live race's ``first_entry`` is the id its entries start
    # from, and entries below the oldest live race's belong to finished races
    # and are deleted (server/store/sqlite.py, Database.write).
    (
        """CREATE TABLE journal_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            race_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            seat INTEGER NOT NULL CHECK (seat IN (0, 1)),
            what TEXT NOT NULL,
            at REAL NOT NULL
        )""",
        """INSERT INTO journal_log (race_id, seq, seat, what, at)
            SELECT race_id, seq, seat, what, at FROM journal ORDER BY race_id, seq""",
        "DROP TABLE journal",
        "ALTER TABLE journal_log RENAME TO journal",
        "ALTER TABLE live_races ADD COLUMN first_entry INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX live_races_by_first_entry ON live_races (first_entry)",
    ),
    # 4 -> 5: which algorithm dealt a race (core/seeding.py). Every race
    # before this one was dealt by CPython's random from integer seeds.
    (
        "ALTER TABLE races ADD COLUMN dealing TEXT NOT NULL DEFAULT 'mt19937'",
        "ALTER TABLE live_races ADD COLUMN dealing TEXT NOT NULL DEFAULT 'mt19937'",
    ),
    # 5 -> 6: ratings (core/glicko2.py), race times, and what the HTTP API
    # reads (server/store/reads.py). Times of races recorded before come from their moves.
    (
        "ALTER TABLE players ADD COLUMN rating REAL NOT NULL DEFAULT 1500",
        "ALTER TABLE players ADD COLUMN deviation REAL NOT NULL DEFAULT 500",
        "ALTER TABLE players ADD COLUMN volatility REAL NOT NULL DEFAULT 0.09",
        "ALTER TABLE players ADD COLUMN rated_races INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE players ADD COLUMN best_clear_ms INTEGER",
        *(f"ALTER TABLE races ADD COLUMN {column} INTEGER" for column in _RACE_COLUMNS),
        "ALTER TABLE live_races ADD COLUMN ratings TEXT",
        *(_LAST_CARD % (seat, seat) for seat in (0, 1)),
        _BEST_CLEAR,
        "CREATE INDEX races_by_player0 ON races (player0, ended)",
        "CREATE INDEX races_by_player1 ON races (player1, ended)",
        "CREATE INDEX players_by_rating ON players (rating)",
    ),
    # 6 -> 7: a journal row holds a whole batch, its entries as lines
    # (server/store/journal_lines.py): a row per entry cost more than the rest of
    # the commit. Each old row becomes a row of one line, with its id; the
    # AUTOINCREMENT counter carries over, so ids still only grow past every
    # live race's first_entry, even when the old log had been emptied.
    (
        """CREATE TABLE journal_batches (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            entries TEXT NOT NULL
        )""",
        """INSERT INTO journal_batches (id, entries)
            SELECT id, race_id || ' ' || seq || ' ' || seat || ' ' || what || ' '
                || printf('%!.17g', at)
            FROM journal ORDER BY id""",
        """INSERT INTO sqlite_sequence (name, seq)
            SELECT 'journal_batches', 0
            WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'journal_batches')""",
        """UPDATE sqlite_sequence SET seq = max(seq, coalesce(
            (SELECT seq FROM sqlite_sequence WHERE name = 'journal'), 0))
            WHERE name = 'journal_batches'""",
        "DROP TABLE journal",
        "ALTER TABLE journal_batches RENAME TO journal",
    ),
    # 7 -> 8: a live race's epoch, its current ownership (server/store/machine.py,
    # "Fencing"): the store writes a race's entries only under its current epoch.
    ("ALTER TABLE live_races ADD COLUMN epoch INTEGER NOT NULL DEFAULT 1",),
    # 8 -> 9: fair play and the operator's tools (server/operator/): declared bots,
    # bans and forgotten players; each finished race's fair-play judgement and full
    # ratings (for an annul); a live race's declared bots; the marks the operator
    # reviews (flags and reports); and the audit log of every operator action.
    (
        "ALTER TABLE players ADD COLUMN bot INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE players ADD COLUMN banned INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE players ADD COLUMN forgotten REAL",
        *(f"ALTER TABLE races ADD COLUMN {column} TEXT" for column in _JUDGED),
        "ALTER TABLE races ADD COLUMN annulled REAL",
        "ALTER TABLE live_races ADD COLUMN bot0 INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE live_races ADD COLUMN bot1 INTEGER NOT NULL DEFAULT 0",
        MARKS,
        "CREATE INDEX marks_by_player ON marks (player_id, cleared)",
        "CREATE INDEX marks_by_reporter ON marks (reporter, at)",
        """CREATE TABLE actions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at REAL NOT NULL,
            action TEXT NOT NULL,
            target TEXT NOT NULL,
            reason TEXT NOT NULL,
            done_by TEXT NOT NULL,
            player_id TEXT,
            detail TEXT
        )""",
        "CREATE INDEX players_unused ON players (games, last_seen)",
    ),
    # 9 -> 10: the daily deal (server/store/daily_rows.py): a race's kind (core/race_kind.py,
    # JSON, null for a plain race) on live and finished races, so a restored daily race
    # keeps its day and ghost; each day's seed and commit; each day's ranked races; and
    # each player's streak.
    (
        "ALTER TABLE live_races ADD COLUMN kind TEXT",
        "ALTER TABLE races ADD COLUMN kind TEXT",
        "ALTER TABLE players ADD COLUMN daily_last TEXT",
        "ALTER TABLE players ADD COLUMN daily_streak INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE players ADD COLUMN daily_best_streak INTEGER NOT NULL DEFAULT 0",
        """CREATE TABLE daily_deals (
            day TEXT PRIMARY KEY,
            seed TEXT NOT NULL,
            commitment TEXT NOT NULL,
            drawn REAL NOT NULL
        )""",
        """CREATE TABLE daily_results (
            day TEXT NOT NULL,
            player_id TEXT NOT NULL REFERENCES players(id),
            race_id TEXT NOT NULL UNIQUE REFERENCES races(id),
            time_ms INTEGER,
            count INTEGER NOT NULL,
            flagged INTEGER NOT NULL DEFAULT 0,
            ended REAL NOT NULL,
            PRIMARY KEY (day, player_id)
        )""",
        "CREATE INDEX daily_results_by_time ON daily_results (day, time_ms)",
    ),
    # 10 -> 11: arenas (server/store/arena_rows.py): each one the operator scheduled, with
    # its owner's epoch (fenced as a live race is), and each player who joined one.
    (
        """CREATE TABLE arenas (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            rules TEXT NOT NULL,
            starts_at REAL NOT NULL,
            ends_at REAL NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('upcoming', 'running', 'finished')),
            epoch INTEGER NOT NULL DEFAULT 1,
            created REAL NOT NULL
        )""",
        "CREATE INDEX arenas_by_status ON arenas (status, starts_at)",
        """CREATE TABLE arena_entrants (
            arena_id TEXT NOT NULL REFERENCES arenas(id),
            player_id TEXT NOT NULL,
            name TEXT NOT NULL,
            bot INTEGER NOT NULL,
            ord INTEGER NOT NULL,
            joined INTEGER NOT NULL,
            score INTEGER NOT NULL,
            streak INTEGER NOT NULL,
            races INTEGER NOT NULL,
            last_opponent TEXT,
            PRIMARY KEY (arena_id, player_id)
        ) WITHOUT ROWID""",
    ),
    # 11 -> 12: each player's last race's end, for a worker to tell them if the one
    # that ended it cannot (server/store/end_rows.py): a row a player, replaced.
    (
        """CREATE TABLE owed_ends (
            player_id TEXT PRIMARY KEY,
            race_id TEXT NOT NULL,
            teller TEXT NOT NULL,
            ended REAL NOT NULL,
            state TEXT NOT NULL
        )""",
    ),
)
"""``MIGRATIONS[n]`` takes a database from ``user_version`` n to n + 1."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The ``PRAGMA user_version`` the store writes and reads."""
