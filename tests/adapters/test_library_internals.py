"""Guards of the library internals the service relies on (connectivity/adapters/). Each test
states what an adapter relies on and fails loudly, naming it, when an upgrade changes it: fix the
adapter (or move to the public API) before upgrading."""

from __future__ import annotations

import hashlib
import time
import uuid

import pytest
from flask import Flask
from flask_smorest import Api, Blueprint
from limits import RateLimitItemPerMinute
from limits.storage import RedisStorage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from connectivity.adapters.limits_moving_window import (MovingWindowScripts,
                                                        window_start_and_entries)
from connectivity.adapters.smorest_apidoc import document_without_wrapping

# --- limits: RedisStorage's moving-window scripts ------------------------------------------


@pytest.fixture
def storage(settings) -> RedisStorage:
    return storage_from_string(settings.redis_url,
                               key_prefix=f"{settings.redis_prefix}guard-{uuid.uuid4().hex}")


def test_limits_redis_storage_still_has_what_the_adapter_uses(storage):
    for name in ("prefixed_key", "get_connection", "lua_acquire_moving_window",
                 "lua_moving_window"):
        assert hasattr(storage, name), f"limits RedisStorage.{name} is gone: see " \
                                       "connectivity/adapters/limits_moving_window.py"
    for script in (storage.lua_acquire_moving_window, storage.lua_moving_window):
        # redis-py Script: the adapter sends `.sha` with EVALSHA and reloads `.script`.
        assert script.sha == hashlib.sha1(script.script.encode()
                                          if isinstance(script.script, str)
                                          else script.script).hexdigest()
    item = RateLimitItemPerMinute(3)
    assert storage.prefixed_key(item.key_for("k")).startswith(storage.key_prefix)


def test_limits_scripts_behave_as_the_public_api_says(storage):
    """Hits sent through the adapter's pipeline are the library's hits: its public
    `get_window_stats` and `hit` see exactly the window the adapter wrote and counted."""
    scripts = MovingWindowScripts(storage)
    scripts.load()  # a Redis that never ran them has no scripts cached (the service reloads too)
    library = MovingWindowRateLimiter(storage)
    item, limit = RateLimitItemPerMinute(3), 3
    key, expiry = scripts.key(item, "who"), item.get_expiry()
    seen = []
    for _ in range(limit + 1):
        now = time.time()
        value, acquired, window = scripts.acquire_and_count(key, now, limit, expiry, None)
        start, entries = window_start_and_entries(window, now)
        seen.append((bool(acquired), entries))
        # The script answers the oldest entry through Lua's tostring: 14 significant digits,
        # so a timestamp of this century comes back rounded to 0.1 ms, either way.
        assert value is None and now - expiry <= start <= now + 1e-4
    assert seen == [(True, 1), (True, 2), (True, 3), (False, 3)]
    stats = library.get_window_stats(item, "who")
    assert stats.remaining == 0
    assert time.time() < stats.reset_time <= time.time() + expiry
    assert library.hit(item, "who") is False
    assert library.hit(RateLimitItemPerMinute(3), "someone else") is True
    assert window_start_and_entries(scripts.count(key, time.time(), limit, expiry),
                                    time.time())[1] == 3


def test_limits_scripts_reload_after_a_flush(storage):
    from redis.exceptions import NoScriptError

    scripts = MovingWindowScripts(storage)
    storage.get_connection().script_flush()  # as after a Redis restart
    item = RateLimitItemPerMinute(2)
    key = scripts.key(item, "flushed")
    _, acquired, _ = scripts.acquire_and_count(key, time.time(), 2, 60, None)
    assert isinstance(acquired, NoScriptError)
    scripts.load()
    _, acquired, window = scripts.acquire_and_count(key, time.time(), 2, 60, None)
    assert acquired == 1 and int(window[1]) == 1


# --- flask-smorest: `_apidoc` --------------------------------------------------------------


def test_smorest_alt_response_keeps_its_documentation_in_apidoc():
    blp = Blueprint("guard", __name__)

    def view():
        return "answer"

    wrapper = blp.alt_response(418, description="teapot")(view)
    assert wrapper is not view
    assert 418 in getattr(wrapper, "_apidoc", {}).get("response", {}).get("responses", {}), (
        "flask-smorest no longer keeps alt_response's documentation in `_apidoc`: see "
        "connectivity/adapters/smorest_apidoc.py")


def test_smorest_route_reads_apidoc_from_the_unwrapped_view():
    app = Flask(__name__)
    app.config.update(API_TITLE="guard", API_VERSION="1", OPENAPI_VERSION="3.0.3")
    api = Api(app)
    blp = Blueprint("guard", __name__)
    calls = []

    def view():
        calls.append(1)
        return {}

    documented = document_without_wrapping(
        view, blp.alt_response(418, description="teapot")(view))
    assert documented is view
    blp.route("/guard")(documented)
    api.register_blueprint(blp)
    responses = api.spec.to_dict()["paths"]["/guard"]["get"]["responses"]
    assert responses["418"]["description"] == "teapot", (
        "flask-smorest no longer reads `_apidoc` from the routed view: see "
        "connectivity/adapters/smorest_apidoc.py")
    assert app.test_client().get("/guard").status_code == 200 and calls == [1]


# --- rq: the worker's pub/sub listener thread -----------------------------------------------


def test_rq_worker_keeps_its_listener_in_pubsub_thread(services):
    import redis as redis_lib
    from rq import Queue, Worker

    from connectivity.adapters.rq_pubsub import stop_listening

    connection = redis_lib.Redis.from_url(services.redis_url)
    worker = Worker([Queue(f"{services.redis_prefix}guard", connection=connection)],
                    connection=connection)
    assert getattr(worker, "pubsub_thread", "gone") is None, (
        "rq Worker no longer starts with `pubsub_thread` None: see "
        "connectivity/adapters/rq_pubsub.py")
    worker.subscribe()
    thread = worker.pubsub_thread
    assert thread is not None and thread.is_alive() and callable(thread.stop), (
        "rq Worker.subscribe() no longer leaves a running thread with stop() in "
        "`pubsub_thread`: see connectivity/adapters/rq_pubsub.py")
    stop_listening(worker)
    # The listener waits up to 60 s for a message before it looks at its stop flag again; a
    # message the worker ignores (no known command) wakes it so the test need not wait.
    connection.publish(worker.pubsub_channel_name, '{"command": "guard-wake-up"}')
    thread.join(timeout=10)
    assert not thread.is_alive()
    worker.pubsub.close()
    connection.close()
