"""An ARI push with an Idempotency-Key (contract 12.4) stores its key beside its batch: both on
the hotel's shard (ari_idempotency_keys is colocated with ari_batches), committed in one phase;
the replay stores nothing. Observed from what the coordinator sends to the workers."""

from __future__ import annotations

import re

from tests.support.signing import bearer
from tests.system.citus.conftest import API, remote_commands

ITEMS = [{"room_type_code": "ACME-DBL", "date": "2030-01-01", "availability": 3}]


def written(sent, table: str) -> tuple[set[str], set[int]]:
    pattern = re.compile(rf"^(?:INSERT INTO|UPDATE|COPY) public\.{re.escape(table)}_(\d+)\b")
    hits = [(pattern.match(c), port) for port, c in sent.sent]
    return {m[1] for m, _ in hits if m}, {port for m, port in hits if m}


def test_a_keyed_push_writes_key_and_batch_on_one_shard_in_one_phase(citus, settings, issue,
                                                                    catalog):
    key = bearer(issue("push", signed=False).token) | {"Idempotency-Key": "citus-1"}
    body = {"hotel_code": "ACME-LIS", "items": ITEMS}
    with remote_commands(citus, settings) as (app, sent):
        first = app.test_client().put(f"{API}/ari", json=body, headers=key)
    assert first.status_code == 202, first.get_json()
    batch_shards, batch_nodes = written(sent, "ari_batches")
    key_shards, key_nodes = written(sent, "ari_idempotency_keys")
    assert len(batch_shards) == len(key_shards) == 1 and batch_nodes == key_nodes, sent.sent
    assert sent.prepared_on() == set(), sent.sent

    with remote_commands(citus, settings) as (app, sent):
        again = app.test_client().put(f"{API}/ari", json=body, headers=key)
    assert again.status_code == 202 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["data"] == first.get_json()["data"]
    assert written(sent, "ari_batches") == written(sent, "ari_idempotency_keys") == (set(), set())
