"""The sans-I/O cores: everything that decides, every input given ``now``.

The race and lobby cores, deciding, seeding, seeks and matching, listing,
ratings, the bots' policy, records, limits, restoring and the rules of
identity. Nothing here does I/O or knows asyncio (tests/core/test_isolation.py):
the server (and the client's practice) drive it and carry out its outputs.
"""
