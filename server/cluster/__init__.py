"""Several workers, one lobby: Redis between them, and the supervisor of ``--workers``."""
