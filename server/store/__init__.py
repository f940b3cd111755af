"""The store: players, live races' journals and finished races, on SQLite or PostgreSQL."""
