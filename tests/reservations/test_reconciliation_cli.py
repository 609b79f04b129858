"""`flask --app app reconciliation list [--partner CODE] [--json]` and `reconciliation resolve
ID` (contract 9)."""

from __future__ import annotations

import json

from tests.support.envelope import assert_envelope_success
from tests.operator.conftest import cli, output_of, write_catalog  # noqa: F401  (fixtures)

from tests.reservations.conftest import day, post, reservation

FIELDS = {"id", "partner_code", "reference", "code", "details", "created_at", "resolved_at"}


def listed(cli, *args):
    result = cli("reconciliation", "list", "--json", *args)
    assert result.exit_code == 0, output_of(result)
    return json.loads(result.output)


def some_items(client, push):
    # CM-1: no inventory (shortfall); CM-2: an orphan cancel
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    assert_envelope_success(post(client, "/reservations/CM-2/cancel", {}, push))


def test_list_json_names_partner_reference_and_what_disagrees(cli, client, push):
    some_items(client, push)
    rows = listed(cli)
    assert [set(r) for r in rows] == [FIELDS, FIELDS]
    assert [(r["partner_code"], r["reference"], r["code"]) for r in rows] == [
        ("acme", "CM-1", "inventory_shortfall"), ("acme", "CM-2", "orphan_cancellation")]
    assert rows[0]["details"]["nights"][0] == {
        "room_type_code": "ACME-DBL", "date": day(0).isoformat(), "wanted": 1, "taken": 0,
        "short": 1}
    assert rows[0]["resolved_at"] is None and rows[0]["created_at"]


def test_list_by_partner(cli, client, push, write_catalog):
    some_items(client, push)
    result = cli("catalog", "load", write_catalog(
        {"partners": [{"code": "globex", "name": "Globex"}]}))
    assert result.exit_code == 0, output_of(result)
    assert len(listed(cli, "--partner", "acme")) == 2
    assert listed(cli, "--partner", "globex") == []
    result = cli("reconciliation", "list", "--partner", "nobody")
    assert result.exit_code != 0 and "nobody" in output_of(result)


def test_text_listing(cli, client, push):
    some_items(client, push)
    result = cli("reconciliation", "list")
    assert result.exit_code == 0, output_of(result)
    assert "CM-1" in result.output and "inventory_shortfall" in result.output
    assert "orphan_cancellation" in result.output and "open" in result.output


def test_resolve(cli, client, push):
    some_items(client, push)
    first = listed(cli)[0]
    result = cli("reconciliation", "resolve", first["id"])
    assert result.exit_code == 0, output_of(result)
    rows = {r["id"]: r for r in listed(cli)}
    assert rows[first["id"]]["resolved_at"] is not None
    assert sum(r["resolved_at"] is None for r in rows.values()) == 1
    assert [r["code"] for r in listed(cli, "--unresolved")] == ["orphan_cancellation"]

    again = cli("reconciliation", "resolve", first["id"])
    assert again.exit_code == 0 and "already" in again.output
    assert listed(cli)[0]["resolved_at"] == rows[first["id"]]["resolved_at"]

    missing = cli("reconciliation", "resolve", "999999")
    assert missing.exit_code != 0 and "999999" in output_of(missing)
    assert "Traceback" not in output_of(missing)
