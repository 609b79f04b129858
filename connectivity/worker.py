"""The Procfile's worker: an RQ worker on Redis for the asynchronous ARI batches.

HerokuWorker turns a platform's SIGTERM into a clean stop: the job in hand is given the chance
to finish (and, past the grace period, is left to be picked up again from PostgreSQL)."""

from __future__ import annotations

import redis
from rq.worker import HerokuWorker

from .logs import configure_logging
from .settings import Settings

ARI_QUEUE = "ari"


def queue_name(settings: Settings) -> str:
    # Prefixed like every Redis key, so a shared Redis keeps services and test runs apart.
    return f"{settings.redis_prefix}{ARI_QUEUE}"


def main() -> None:
    settings = Settings.from_env()
    configure_logging(settings.log_level)
    connection = redis.Redis.from_url(settings.redis_url)
    HerokuWorker([queue_name(settings)], connection=connection).work(with_scheduler=True)


if __name__ == "__main__":
    main()
