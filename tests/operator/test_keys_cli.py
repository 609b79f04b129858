"""`keys issue|revoke|list` (contract sections 2, 3 and 9)."""

from __future__ import annotations

import base64
import json
import re
from datetime import datetime, timezone

import pytest
from psycopg import sql

from tests.operator.conftest import output_of

BASE62 = "[A-Za-z0-9]"
TOKEN_RE = re.compile(rf"((?:sbx|live)_{BASE62}+)\.({BASE62}+)")
PRESETS = {
    "pull": {"ari.read", "content.read", "booking.quote", "booking.write", "booking.read",
             "booking.cancel"},
    "push": {"ari.write", "restriction.write", "reservation.write", "reservation.cancel"},
    "none": set(),
}
WHOAMI = "/api/connectivity/v1/whoami"


@pytest.fixture
def issue_cli(cli, catalog):
    """keys issue for partner acme (the demo catalogue is loaded) with --json; returns the dict."""
    def issue(*options, preset="pull", environment="sandbox", name="cli key"):
        result = cli("keys", "issue", "--partner", "acme", "--name", name,
                     "--environment", environment, "--preset", preset, "--json", *options)
        assert result.exit_code == 0, (output_of(result), repr(result.exception))
        return json.loads(result.output)
    return issue


def key_row(pg, key_id):
    cur = pg.execute("SELECT key_id, environment, scopes, requires_signature, "
                     "rate_limit_per_minute, expires_at, revoked_at, name FROM api_keys "
                     "WHERE key_id = %s", (key_id,))
    row = cur.fetchone()
    return dict(zip([c.name for c in cur.description], row)) if row else None


# ------------------------------------------------------------------------------ issue


@pytest.mark.parametrize("environment, prefix", [("sandbox", "sbx_"), ("production", "live_")])
def test_issue_prints_a_token_of_the_contract_shape(cli, catalog, pg, environment, prefix):
    result = cli("keys", "issue", "--partner", "acme", "--name", "n",
                 "--environment", environment, "--preset", "pull")
    text = output_of(result)
    assert result.exit_code == 0, text
    tokens = TOKEN_RE.findall(text)
    assert len(tokens) == 1, text
    key_id, secret = tokens[0]
    assert re.fullmatch(rf"{prefix}{BASE62}{{16,}}", key_id), key_id
    assert re.fullmatch(rf"{BASE62}{{43,}}", secret), secret     # >= 256 bits of base62
    assert f"{key_id}.{secret}" in text
    row = key_row(pg, key_id)
    assert row is not None and row["environment"] == environment
    assert row["name"] == "n"


def test_every_issue_makes_a_new_key_id_and_secret(issue_cli):
    a, b = issue_cli(), issue_cli()
    assert a["key_id"] != b["key_id"]
    assert a["token"].split(".", 1)[1] != b["token"].split(".", 1)[1]


def test_issue_json_is_exactly_one_object(cli, catalog):
    result = cli("keys", "issue", "--partner", "acme", "--name", "n", "--environment",
                 "production", "--preset", "push", "--json")
    assert result.exit_code == 0, output_of(result)
    body = json.loads(result.output)          # the whole output is one JSON document
    assert isinstance(body, dict)
    assert {"key_id", "token", "requires_signature", "scopes", "rate_limit_per_minute",
            "expires_at"} <= body.keys()
    assert body["key_id"].startswith("live_")
    key_id, dot, secret = body["token"].partition(".")
    assert dot and key_id == body["key_id"]
    assert re.fullmatch(rf"live_{BASE62}{{16,}}", key_id)
    assert re.fullmatch(rf"{BASE62}{{43,}}", secret)
    assert body["requires_signature"] is True
    assert isinstance(body["rate_limit_per_minute"], int)
    assert body["expires_at"] is None


@pytest.mark.parametrize("preset", ["pull", "push", "none"])
def test_preset_scopes_are_exactly_the_contracts(issue_cli, pg, preset):
    body = issue_cli(preset=preset)
    assert sorted(body["scopes"]) == sorted(PRESETS[preset])
    assert len(body["scopes"]) == len(set(body["scopes"]))
    assert sorted(key_row(pg, body["key_id"])["scopes"]) == sorted(PRESETS[preset])


def test_scope_adds_to_the_preset(issue_cli, pg):
    body = issue_cli("--scope", "content.read", preset="push")
    expected = sorted(PRESETS["push"] | {"content.read"})
    assert sorted(body["scopes"]) == expected
    assert sorted(key_row(pg, body["key_id"])["scopes"]) == expected


def test_scope_can_be_repeated_and_on_preset_none(issue_cli):
    body = issue_cli("--scope", "ari.read", "--scope", "booking.read", preset="none")
    assert sorted(body["scopes"]) == ["ari.read", "booking.read"]


def test_an_unknown_scope_is_refused(cli, catalog, pg):
    result = cli("keys", "issue", "--partner", "acme", "--name", "n", "--environment", "sandbox",
                 "--preset", "pull", "--scope", "admin.all")
    assert result.exit_code != 0
    assert pg.execute("SELECT count(*) FROM api_keys").fetchone() == (0,)


@pytest.mark.parametrize("preset, options, signed", [
    ("push", (), True),
    ("pull", (), False),
    ("none", (), False),
    ("push", ("--unsigned",), False),
    ("pull", ("--signed",), True),
    ("push", ("--signed",), True),
    ("pull", ("--unsigned",), False),
])
def test_requires_signature_defaults_and_overrides(issue_cli, pg, preset, options, signed):
    body = issue_cli(*options, preset=preset)
    assert body["requires_signature"] is signed
    assert key_row(pg, body["key_id"])["requires_signature"] is signed


def test_rate_limit_and_expiry_are_stored(issue_cli, pg):
    body = issue_cli("--rate-limit", "42", "--expires-at", "2030-01-01T00:00:00+00:00")
    assert body["rate_limit_per_minute"] == 42
    assert datetime.fromisoformat(body["expires_at"]) == datetime(2030, 1, 1, tzinfo=timezone.utc)
    row = key_row(pg, body["key_id"])
    assert row["rate_limit_per_minute"] == 42
    assert row["expires_at"] == datetime(2030, 1, 1, tzinfo=timezone.utc)


def test_expiry_with_another_offset_is_the_same_instant(issue_cli, pg):
    body = issue_cli("--expires-at", "2030-01-01T02:00:00+02:00")
    assert key_row(pg, body["key_id"])["expires_at"] == datetime(2030, 1, 1, tzinfo=timezone.utc)


def test_default_rate_limit_and_no_expiry(issue_cli, pg):
    body = issue_cli()
    row = key_row(pg, body["key_id"])
    assert row["rate_limit_per_minute"] == body["rate_limit_per_minute"] >= 1
    assert row["expires_at"] is None and body["expires_at"] is None
    assert row["revoked_at"] is None


@pytest.mark.parametrize("option", [("--rate-limit", "0"), ("--expires-at", "next tuesday")])
def test_bad_options_are_refused(cli, catalog, pg, option):
    result = cli("keys", "issue", "--partner", "acme", "--name", "n", "--environment", "sandbox",
                 "--preset", "pull", *option)
    assert result.exit_code != 0
    assert output_of(result).strip()
    assert pg.execute("SELECT count(*) FROM api_keys").fetchone() == (0,)


def test_an_unknown_partner_is_refused_with_a_message(cli, catalog, pg):
    result = cli("keys", "issue", "--partner", "nobody", "--name", "n", "--environment",
                 "sandbox", "--preset", "pull")
    text = output_of(result)
    assert result.exit_code != 0
    assert "nobody" in text, text
    assert "Traceback" not in text
    assert pg.execute("SELECT count(*) FROM api_keys").fetchone() == (0,)


# ------------------------------------------------------------------- secret storage


def _database_dump(pg) -> tuple[str, list[bytes]]:
    """Every row of every table as JSON text, and every bytea value raw."""
    tables = [r[0] for r in pg.execute(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")]
    assert "api_keys" in tables
    texts, blobs = [], []
    for table in tables:
        texts += [r[0] for r in pg.execute(
            sql.SQL("SELECT row_to_json(t)::text FROM {} t").format(sql.Identifier(table)))]
        for (column,) in pg.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' "
                "AND table_name = %s AND data_type = 'bytea'", (table,)).fetchall():
            rows = pg.execute(sql.SQL("SELECT {c}, encode({c}, 'base64'), encode({c}, 'escape') "
                                      "FROM {t}").format(c=sql.Identifier(column),
                                                         t=sql.Identifier(table))).fetchall()
            for raw, b64, escaped in rows:
                blobs.append(bytes(raw))
                texts += [b64.replace("\n", ""), escaped]
    return "\n".join(texts), blobs


def test_the_secret_appears_nowhere_in_the_database(cli, catalog, pg):
    tokens = []
    for preset in ("pull", "push"):       # an unsigned and a signed key
        result = cli("keys", "issue", "--partner", "acme", "--name", "n", "--environment",
                     "sandbox", "--preset", preset, "--json")
        assert result.exit_code == 0, output_of(result)
        tokens.append(json.loads(result.output)["token"])
    dump, blobs = _database_dump(pg)
    assert dump.count(tokens[0].split(".")[0]) >= 1      # the dump does hold the key rows
    for token in tokens:
        secret = token.split(".", 1)[1]
        forms = {
            "secret": secret, "token": token,
            "secret hex": secret.encode().hex(), "token hex": token.encode().hex(),
            "secret base64": base64.b64encode(secret.encode()).decode().rstrip("="),
            "secret base64url": base64.urlsafe_b64encode(secret.encode()).decode().rstrip("="),
            "token base64": base64.b64encode(token.encode()).decode().rstrip("="),
        }
        for what, form in forms.items():
            assert form not in dump, what
            assert form.lower() not in dump.lower(), what
        for blob in blobs:
            assert secret.encode() not in blob
            assert token.encode() not in blob


# ------------------------------------------------------------ authenticate / revoke


def test_an_issued_unsigned_key_authenticates(issue_cli, client):
    body = issue_cli(preset="pull")
    response = client.get(WHOAMI, headers={"Authorization": f"Bearer {body['token']}"})
    assert response.status_code == 200, response.json
    data = response.json["data"]
    assert data["key"]["key_id"] == body["key_id"]
    assert data["partner"]["code"] == "acme"
    assert sorted(data["scopes"]) == sorted(PRESETS["pull"])


def test_an_issued_signed_key_refuses_a_bearer_token(issue_cli, client):
    body = issue_cli(preset="push")
    response = client.get(WHOAMI, headers={"Authorization": f"Bearer {body['token']}"})
    assert response.status_code == 401
    assert response.json["error"]["code"] == "signature_required"


def test_a_wrong_secret_does_not_authenticate(issue_cli, client):
    body = issue_cli(preset="pull")
    token = body["token"][:-1] + ("A" if body["token"][-1] != "A" else "B")
    response = client.get(WHOAMI, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert response.json["error"]["code"] == "invalid_credentials"


def test_revoke_takes_effect_for_the_next_request(cli, issue_cli, client, pg):
    body = issue_cli(preset="pull")
    headers = {"Authorization": f"Bearer {body['token']}"}
    assert client.get(WHOAMI, headers=headers).status_code == 200

    result = cli("keys", "revoke", body["key_id"])
    assert result.exit_code == 0, output_of(result)
    assert body["key_id"] in result.output
    assert key_row(pg, body["key_id"])["revoked_at"] is not None

    response = client.get(WHOAMI, headers=headers)
    assert response.status_code == 401
    assert response.json["error"]["code"] == "key_revoked"
    assert response.headers.get("WWW-Authenticate")


def test_revoke_only_revokes_that_key(cli, issue_cli, client):
    a, b = issue_cli(), issue_cli()
    assert cli("keys", "revoke", a["key_id"]).exit_code == 0
    response = client.get(WHOAMI, headers={"Authorization": f"Bearer {b['token']}"})
    assert response.status_code == 200


def test_revoking_twice_keeps_the_first_time(cli, issue_cli, pg):
    body = issue_cli()
    assert cli("keys", "revoke", body["key_id"]).exit_code == 0
    first = key_row(pg, body["key_id"])["revoked_at"]
    cli("keys", "revoke", body["key_id"])
    assert key_row(pg, body["key_id"])["revoked_at"] == first


def test_revoking_an_unknown_key_fails(cli, catalog, pg):
    result = cli("keys", "revoke", "sbx_" + "A" * 24)
    text = output_of(result)
    assert result.exit_code != 0
    assert "sbx_" + "A" * 24 in text, text


# ---------------------------------------------------------------------------- list


def test_list_shows_key_ids_and_never_the_secret(cli, issue_cli):
    keys = [issue_cli(name="first"), issue_cli(preset="push", environment="production",
                                               name="second")]
    assert cli("keys", "revoke", keys[0]["key_id"]).exit_code == 0
    for args in (("keys", "list", "--partner", "acme"),
                 ("keys", "list", "--partner", "acme", "--json")):
        result = cli(*args)
        text = output_of(result)
        assert result.exit_code == 0, text
        for key in keys:
            assert key["key_id"] in text
            secret = key["token"].split(".", 1)[1]
            assert secret not in text
            assert key["token"] not in text
    listed = json.loads(cli("keys", "list", "--partner", "acme", "--json").output)
    assert sorted(k["key_id"] for k in listed) == sorted(k["key_id"] for k in keys)
    assert all("token" not in k and "secret_hash" not in k and "signing_secret" not in k
               for k in listed)


def test_list_shows_only_that_partners_keys(cli, issue_cli, write_catalog):
    mine = issue_cli()
    other_catalog = write_catalog({"partners": [{"code": "globex", "name": "Globex"}]})
    assert cli("catalog", "load", other_catalog).exit_code == 0
    result = cli("keys", "issue", "--partner", "globex", "--name", "g", "--environment",
                 "sandbox", "--preset", "none", "--json")
    assert result.exit_code == 0, output_of(result)
    theirs = json.loads(result.output)
    listing = cli("keys", "list", "--partner", "acme").output
    assert mine["key_id"] in listing
    assert theirs["key_id"] not in listing


def test_list_of_an_unknown_partner_exits_1_with_a_message(cli, catalog):
    for args in (("--partner", "nope"), ("--partner", "nope", "--json")):
        result = cli("keys", "list", *args)
        text = output_of(result)
        assert result.exit_code == 1, text
        assert "unknown partner 'nope'" in text and "Traceback" not in text


def test_list_of_a_partner_without_keys_is_empty_and_exits_0(cli, catalog, write_catalog):
    assert cli("catalog", "load", write_catalog(
        {"partners": [{"code": "globex", "name": "Globex"}]})).exit_code == 0
    result = cli("keys", "list", "--partner", "globex", "--json")
    assert result.exit_code == 0, output_of(result)
    assert json.loads(result.output) == []
