"""The retry schedule (contract 12.3, WEBHOOK_RETRY_SCHEDULE): its setting, and when a failed
delivery is tried next."""

from __future__ import annotations

import datetime as dt

import pytest

from connectivity.settings import Settings, SettingsError
from connectivity.webhooks.schedule import next_attempt_at

ENV = {"DATABASE_URL": "postgresql://x/y", "REDIS_URL": "redis://x", "SECRET_KEY": "s" * 32}
T0 = dt.datetime(2027, 1, 1, tzinfo=dt.timezone.utc)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def test_the_default_schedule_is_the_contracts_about_27_hours():
    schedule = Settings.from_env(ENV).webhook_retry_schedule
    assert schedule == (5, 300, 1800, 7200, 18000, 36000, 36000)
    assert 27 * 3600 < sum(schedule) < 28 * 3600


def test_the_setting_takes_delays_and_refuses_anything_else():
    assert Settings.from_env({**ENV, "WEBHOOK_RETRY_SCHEDULE": "1, 2,3"}
                             ).webhook_retry_schedule == (1, 2, 3)
    for bad in ("0,5", "5,-1", "5,x", "1.5", ","):
        with pytest.raises(SettingsError, match="WEBHOOK_RETRY_SCHEDULE"):
            Settings.from_env({**ENV, "WEBHOOK_RETRY_SCHEDULE": bad})


def test_each_retry_follows_the_one_before_and_none_is_left_after_the_last():
    schedule = (5, 300, 1800)
    # Attempts as scheduled: first at T0, retries at 5 s, 305 s and 2105 s.
    assert next_attempt_at(schedule, T0, at(0)) == at(5)
    assert next_attempt_at(schedule, T0, at(5)) == at(305)
    assert next_attempt_at(schedule, T0, at(305)) == at(2105)
    assert next_attempt_at(schedule, T0, at(2105)) is None


def test_an_extra_attempt_shifts_nothing():
    schedule = (5, 300, 1800)
    # A replay between two retries: the next scheduled time stays.
    assert next_attempt_at(schedule, T0, at(100)) == at(305)
    # A replay after the last time: failed again.
    assert next_attempt_at(schedule, T0, at(99999)) is None
    # A worker that was down past several times resumes at the next one ahead, not all at once.
    assert next_attempt_at(schedule, T0, at(400)) == at(2105)
