"""`ari_batch.finished` (contract 12.2): written by the transaction that records a batch's
outcome (the apply's, or the failure's), on the batch's shard; its data is the batch as GET
/ari/batches/{batchId} answers it from that commit on."""

from __future__ import annotations

from connectivity.events import log
from connectivity.ari.schemas import BatchOutcomeSchema

_OUTCOME = BatchOutcomeSchema()


def announce_finished(conn, batches: list[dict]) -> None:
    """`batches`: as finish_batches / fail_batch return them, in this transaction."""
    for batch in batches:
        log.record(conn, property_id=batch["property_id"], partner_id=batch["partner_id"],
                   environment=batch["environment"], type="ari_batch.finished",
                   data=_OUTCOME.dump(batch))
