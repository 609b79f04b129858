"""The push-reservation use cases: create, cancel and modify. Each runs in one transaction
(`Database.run`) and starts by claiming the reference, so every delivery of one reference
applies after the previous one committed, whatever order they arrive in.

A pushed reservation already happened: nothing here refuses it for inventory. Disagreements
become reconciliation items recorded with the delivery that raised them."""

from __future__ import annotations

import datetime as dt
import secrets
from decimal import Decimal
from zoneinfo import ZoneInfo

from psycopg.types.json import Jsonb

from connectivity.store.database import announces
from connectivity.store.read_fence import READS_CHANGED
from connectivity.auth.authenticate import Caller
from connectivity.store.claimed import claimed_row
from connectivity.store.database import Database
from connectivity.web.errors import NotFound, ServiceUnavailable, ValidationFailed
from connectivity.mapping.hotel_code import find_hotel, not_mapped
from connectivity.store.queries import queries
from connectivity.reservations.findings import (Finding, nightly_rates_findings, penalty_claim_differs, shortfall,
                       unmapped_codes)
from connectivity.reservations.inventory import lock_nights, release_inventory, rooms_wanted, take_inventory
from connectivity.reservations.penalty import pushed_reservation_penalty
from connectivity.reservations.reconciliation import reconciliation_of, record_reconciliation
from connectivity.reservations.schemas import ReservationCancelRequestSchema, ModifyRequestSchema
from connectivity.reservations.state import purged_fields, shown, to_json, with_modification

ORPHAN = "orphan_cancellation"


def push_reservation(db: Database, caller: Caller, reservation: dict, raw: str,
                     request_id: str) -> dict:
    return db.run(_push, caller, reservation, raw, request_id)


def cancel_reservation(db: Database, caller: Caller, reference: str, cancel: dict, raw: str,
                       request_id: str, now: dt.datetime) -> dict:
    """`now`: when the cancellation arrived, the day its penalty is judged on when the partner
    sends no `cancelled_at`."""
    return db.run(_cancel, caller, reference, cancel, raw, request_id, now)


def modify_reservation(db: Database, caller: Caller, reference: str, modification: dict,
                       raw: str, request_id: str) -> dict:
    return db.run(_modify, caller, reference, modification, raw, request_id)


@announces(READS_CHANGED)  # reads reflect it once answered (13.1)
def _push(conn, caller: Caller, reservation: dict, raw: str, request_id: str) -> dict:
    q = queries().reservations
    row, hotel = _claim(conn, caller, reservation["partner_reference"], reservation["status"],
                        reservation["hotel_code"], replay_first=True)
    original = q.latest_delivery(conn, **_at(row), kind="create", payload=raw)
    if original is not None:
        return _replay(conn, row, original, "create", raw, request_id)
    if hotel is None:
        # Rolls back the claim too: nothing is kept of a reservation for no known hotel.
        raise not_mapped(reservation["hotel_code"])
    delivery = _record(conn, row, "create", raw, request_id)
    room_types, rate_plans = _mapped_codes(conn, hotel["mapping_id"])

    # A modify or a cancel may have overtaken the reservation: the latest modify's stay is the
    # current one, and a cancellation stands.
    state = to_json(reservation)
    pending = q.latest_delivery(conn, **_at(row), kind="modify", payload=None)
    modified_rooms = []
    if pending is not None:
        modification = ModifyRequestSchema().load(pending["payload"])
        state = with_modification(state, modification)
        modified_rooms = modification["rooms"]  # unchecked until the hotel was known
    findings = (unmapped_codes(reservation["rooms"] + modified_rooms, room_types, rate_plans)
                + nightly_rates_findings(reservation))
    if "cancelled" in (row["status"], reservation["status"]):
        status = "cancelled"
    else:
        status = "modified" if pending is not None else reservation["status"]
    q.receive_reservation(conn, **_at(row), mapping_id=hotel["mapping_id"], state=Jsonb(state),
                          status=status)

    if status != "cancelled":
        nights = take_inventory(conn, row["id"], delivery["version"], row["property_id"],
                                rooms_wanted(state, room_types))
        findings += shortfall(nights, {v: k for k, v in room_types.items()})
    else:
        cancel = q.latest_delivery(conn, **_at(row), kind="cancel", payload=None)
        if cancel is not None:
            findings += _settle_penalty(conn, row, state,
                                        ReservationCancelRequestSchema().load(cancel["payload"]),
                                        cancel["received_at"], hotel["timezone"])
    # The row as received now: under the mapping of the hotel the reservation names.
    record_reconciliation(conn, caller, reservation["partner_reference"],
                          {**row, "mapping_id": hotel["mapping_id"]}, delivery["version"],
                          findings)
    return _answer(conn, row, delivery, [f.public() for f in findings])


@announces(READS_CHANGED)  # reads reflect it once answered (13.1)
def _cancel(conn, caller: Caller, reference: str, cancel: dict, raw: str,
            request_id: str, now: dt.datetime) -> dict:
    q = queries().reservations
    row, _ = _claim(conn, caller, reference, "cancelled", cancel.get("hotel_code"))
    original = q.latest_delivery(conn, **_at(row), kind="cancel", payload=raw)
    if original is not None:
        return _replay(conn, row, original, "cancel", raw, request_id)
    delivery = _record(conn, row, "cancel", raw, request_id)
    if row["received_at"] is None:
        findings = [Finding(ORPHAN, "cancellation of a reservation never received: kept; the "
                                    "reservation is stored as cancelled if it arrives")]
        q.cancel_reservation(conn, **_at(row), penalty_amount=None,
                             penalty_currency=None, penalty_claim=cancel.get("penalty_amount"),
                             penalty_claim_currency=cancel.get("penalty_currency"))
    else:
        release_inventory(conn, row["property_id"], row["id"])
        findings = _settle_penalty(conn, row, row["state"], cancel, now, row["timezone"])
    record_reconciliation(conn, caller, reference, row, delivery["version"], findings)
    return _answer(conn, row, delivery, [f.public() for f in findings], cancel=True)


@announces(READS_CHANGED)  # reads reflect it once answered (13.1)
def _modify(conn, caller: Caller, reference: str, modification: dict, raw: str,
            request_id: str) -> dict:
    q = queries().reservations
    row, _ = _claim(conn, caller, reference, "modified", modification.get("hotel_code"))
    original = q.latest_delivery(conn, **_at(row), kind="modify", payload=raw)
    if original is not None and original["same_payload"]:
        return _replay(conn, row, original, "modify", raw, request_id)
    delivery = _record(conn, row, "modify", raw, request_id)
    if row["received_at"] is None:
        findings = [Finding("unknown_modification",
                            "modification of a reservation never received: kept; applied to "
                            "the reservation if it arrives")]
    elif row["status"] == "cancelled":
        findings = [Finding("modification_after_cancellation",
                            "modification of a cancelled reservation: kept, not applied; no "
                            "inventory taken")]
    else:
        room_types, _ = _mapped_codes(conn, row["mapping_id"])
        findings = unmapped_codes(modification["rooms"], room_types, set())
        # Old state out, new state in, in this one transaction.
        state = with_modification(row["state"], modification)
        wanted = rooms_wanted(state, room_types)
        lock_nights(conn, row["id"], row["property_id"], wanted)
        release_inventory(conn, row["property_id"], row["id"])
        q.change_reservation(conn, **_at(row), state=Jsonb(state), status="modified")
        nights = take_inventory(conn, row["id"], delivery["version"], row["property_id"],
                                wanted)
        findings += shortfall(nights, {v: k for k, v in room_types.items()})
    record_reconciliation(conn, caller, reference, row, delivery["version"], findings)
    return _answer(conn, row, delivery, [f.public() for f in findings])


def _claim(conn, caller: Caller, reference: str, status: str, hotel_code: str | None,
           replay_first: bool = False) -> tuple[dict, dict | None]:
    """The reference's reservation row, locked (every delivery of one reference applies after
    the previous one committed), and the caller's mapping of `hotel_code` (None when not sent
    or not mapped). A new reference is claimed first (reservation_claims: a concurrent first
    delivery waits on its key, then finds the winner's claim) and its row is created with the
    hotel the delivery names, else the partner's first hotel: a reservation lives with its
    hotel (one shard under Citus), and an orphan moves there once a delivery names it.
    `replay_first`: a hotel other than the reservation's is for the caller to judge, after
    its replay check (POST /reservations)."""
    q = queries().reservations
    keys = {"partner_id": caller.partner_id, "environment": caller.environment,
            "partner_reference": reference}
    hotel = None
    if hotel_code is not None:
        hotel = find_hotel(conn, caller, hotel_code)
    claim = q.find_reservation_claim(conn, **keys)
    if claim is None:
        if hotel_code is not None and hotel is None:
            raise not_mapped(hotel_code)
        property_id = hotel["property_id"] if hotel else q.partner_first_hotel(
            conn, partner_id=caller.partner_id, environment=caller.environment)
        if property_id is None:
            raise NotFound("no hotel is mapped for this partner in this environment")
        claim = q.claim_reservation(conn, **keys, property_id=property_id)
        if claim is not None:
            q.insert_reservation(conn, **keys, **claim, status=status)
        else:
            claim = q.find_reservation_claim(conn, **keys)
    row = q.lock_reservation(conn, **claim)
    if row is None:
        row = _follow_claim(conn, keys)
    if hotel is not None and hotel["property_id"] != row["property_id"]:
        if row["received_at"] is not None:
            if not replay_first:  # a redelivery answers as one, wherever it names
                raise _elsewhere()
        else:
            row = _move_orphan(conn, keys, row, hotel["property_id"])
    return row, hotel


def _follow_claim(conn, keys: dict) -> dict:
    """The claimed reservation's row, locked, when it was not where the claim first said. A
    claim proves its row exists: the row is either not visible yet (Citus, between two
    workers' commits) or gone to its hotel, moved by a concurrent delivery while this one
    waited for its lock (the claim then names the new place). Both are followed by reading the
    claim again, then the row, for a bounded time (store/claimed.py); a 503 with Retry-After if
    the row stays unseen, never a 404."""
    q = queries().reservations
    row = claimed_row(lambda: q.lock_reservation(conn, **q.find_reservation_claim(conn, **keys)))
    if row is None:
        raise ServiceUnavailable(f"reservation {keys['partner_reference']!r} is being stored; "
                                 "retry shortly", retry_after=1)
    return row


def _move_orphan(conn, keys: dict, row: dict, to_property_id: int) -> dict:
    """A cancel or modify that overtook its reservation and named no hotel was kept with the
    partner's first hotel; the delivery naming its hotel moves it there (still unreceived: it
    holds no inventory). Returns its row there, locked."""
    q = queries().reservations
    moving = {"from_property_id": row["property_id"], "reservation_id": row["id"]}
    q.copy_orphan(conn, **moving, to_property_id=to_property_id)
    q.copy_orphan_versions(conn, **moving, to_property_id=to_property_id)
    q.copy_orphan_reconciliation(conn, **moving, to_property_id=to_property_id)
    q.drop_orphan_reconciliation(conn, **moving)
    q.drop_orphan_versions(conn, **moving)
    q.drop_orphan(conn, **moving)
    q.move_reservation_claim(conn, **keys, to_property_id=to_property_id)
    return q.lock_reservation(conn, property_id=to_property_id, reservation_id=row["id"])


def _elsewhere() -> ValidationFailed:
    return ValidationFailed({"hotel_code": [
        "not this reference's hotel: its first delivery named another hotel, where its "
        "reservation is kept"]})


def _at(row: dict) -> dict:
    """The keys of a reservation's rows: its hotel's (the distribution column) and its id."""
    return {"property_id": row["property_id"], "reservation_id": row["id"]}


def _record(conn, row: dict, kind: str, raw: str, request_id: str,
            replay_of: dict | None = None) -> dict:
    ack_id = replay_of["ack_id"] if replay_of else f"ack_{secrets.token_hex(12)}"
    q = queries().reservations
    return q.record_version(
        conn, **_at(row), version=q.next_version(conn, **_at(row)), kind=kind, ack_id=ack_id,
        replay_of=replay_of["version"] if replay_of else None, payload=raw,
        drop_fields=purged_fields(row, kind), request_id=request_id)


def _replay(conn, row: dict, original: dict, kind: str, raw: str, request_id: str) -> dict:
    """A redelivery: kept as a version, answered with the original acknowledgement and the
    reconciliation the original raised; nothing else changes."""
    _record(conn, row, kind, raw, request_id, replay_of=original)
    items = reconciliation_of(conn, row["property_id"], row["id"], original["version"])
    return _answer(conn, row, original, items, replay=True,
                   request_differs=not original["same_payload"], cancel=kind == "cancel")


def _mapped_codes(conn, mapping_id: int) -> tuple[dict[str, int], set[str]]:
    q = queries().reservations
    room_types = {r["room_type_code"]: r["room_type_id"]
                  for r in q.mapped_room_types_for_push(conn, mapping_id=mapping_id)}
    rate_plans = {r["rate_plan_code"]
                  for r in q.mapped_rate_plan_codes_for_push(conn, mapping_id=mapping_id)}
    return room_types, rate_plans


def _settle_penalty(conn, row: dict, state: dict, cancel: dict,
                    arrived_at: dt.datetime, timezone: str) -> list[Finding]:
    """The service's penalty (contract 10), kept beside the partner's claim."""
    currency = state["net_currency"]
    deadline = state.get("cancellation_deadline")
    amount = pushed_reservation_penalty(
        net_amount=Decimal(state["net_amount"]), currency=currency,
        non_refundable=bool(state.get("is_non_refundable")),
        deadline=dt.date.fromisoformat(deadline) if deadline else None,
        # The day it happened where the hotel is, when the partner does not say.
        cancelled_on=cancel.get("cancelled_at") or arrived_at.astimezone(ZoneInfo(timezone)).date())
    queries().reservations.cancel_reservation(
        conn, **_at(row), penalty_amount=amount, penalty_currency=currency,
        penalty_claim=cancel.get("penalty_amount"),
        penalty_claim_currency=cancel.get("penalty_currency"))
    return penalty_claim_differs(amount, currency, cancel.get("penalty_amount"),
                                 cancel.get("penalty_currency"))


def _answer(conn, row: dict, delivery: dict, reconciliation: list[dict], *,
            replay: bool = False, request_differs: bool = False, cancel: bool = False) -> dict:
    view = queries().reservations.reservation_view(conn, **_at(row))
    data = {"reservation": shown(view),
            "acknowledgement": {"ack_id": delivery["ack_id"],
                                "received_at": delivery["received_at"]},
            "idempotent_replay": replay,
            "reconciliation": [{"code": i["code"], "message": i["message"]}
                               for i in reconciliation]}
    if replay:
        data["request_differs"] = request_differs
    if cancel:
        data["penalty"] = {"amount": view["penalty_amount"],
                           "currency": view["penalty_currency"],
                           "partner_claim": view["penalty_claim"],
                           "partner_claim_currency": view["penalty_claim_currency"]}
        data["orphan"] = any(i["code"] == ORPHAN for i in reconciliation)
    return data
