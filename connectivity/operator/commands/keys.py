"""`keys issue`, `keys revoke`, `keys list` and `keys reencrypt`."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import click
from flask.cli import AppGroup

from connectivity.auth.credentials import SigningVault
from connectivity.auth.keycache import KeyStateNotAnnounced
from connectivity.auth.scopes import PRESETS, SCOPES
from connectivity.operator.commands.context import database, settings
from connectivity.operator.key_rotation import DEFAULT_BATCH_SIZE, reencrypt_signing_secrets
from connectivity.web.validators import ENVIRONMENTS
from connectivity.operator.keys import (DEFAULT_RATE_LIMIT_PER_MINUTE, KeyIssueError,
                                        UnknownPartner, issue_key, list_keys, revoke_key)

group = AppGroup("keys", help="Partner API keys.")


def _timestamp(_ctx, _param, value):
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter("an ISO 8601 timestamp, e.g. 2027-01-31T00:00:00+00:00") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


@group.command("issue")
@click.option("--partner", "partner_code", required=True)
@click.option("--name", required=True)
@click.option("--environment", required=True, type=click.Choice(ENVIRONMENTS))
@click.option("--preset", required=True, type=click.Choice(list(PRESETS)))
@click.option("--scope", "extra_scopes", multiple=True, type=click.Choice(SCOPES),
              help="Adds to the preset's scopes; repeatable.")
@click.option("--signed/--unsigned", default=None,
              help="Whether requests must be signed (default: signed for push, else unsigned).")
@click.option("--rate-limit", type=int, default=DEFAULT_RATE_LIMIT_PER_MINUTE, show_default=True,
              help="Requests per minute.")
@click.option("--expires-at", callback=_timestamp, help="ISO 8601 timestamp (UTC if no offset).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def keys_issue(partner_code, name, environment, preset, extra_scopes, signed, rate_limit,
               expires_at, as_json):
    """Issue a key. Its token is printed once and cannot be shown again."""
    vault = _vault()
    try:
        issued = database().run(issue_key, vault, partner_code=partner_code, name=name,
                                environment=environment, preset=preset,
                                extra_scopes=extra_scopes, signed=signed, rate_limit=rate_limit,
                                expires_at=expires_at)
    except KeyIssueError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(issued.public()))
        return
    expires_at = issued.expires_at.isoformat() if issued.expires_at else "never"
    click.echo(f"key_id:             {issued.key_id}\n"
               f"environment:        {issued.environment}\n"
               f"scopes:             {' '.join(issued.scopes) or '(none)'}\n"
               f"requires_signature: {str(issued.requires_signature).lower()}\n"
               f"rate_limit:         {issued.rate_limit_per_minute}/min\n"
               f"expires_at:         {expires_at}\n"
               f"token:              {issued.token}\n"
               "The token is shown this once; the service keeps no copy it could show again.")


@group.command("revoke")
@click.argument("key_id")
def keys_revoke(key_id):
    """Revoke a key; it is refused from the next request on."""
    try:
        row = database().run(revoke_key, key_id)
    except KeyStateNotAnnounced as exc:
        raise click.ClickException(
            f"{key_id} is revoked in the database, but {exc}") from None
    if row is None:
        raise click.ClickException(f"no key {key_id}")
    click.echo(f"revoked {row['key_id']} at {row['revoked_at'].isoformat()}")


@group.command("list")
@click.option("--partner", "partner_code", required=True)
@click.option("--json", "as_json", is_flag=True)
def keys_list(partner_code, as_json):
    """List a partner's keys (never their secrets). An unknown partner exits 1."""
    try:
        rows = database().run(list_keys, partner_code)
    except UnknownPartner as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(rows, default=lambda v: v.isoformat()))
        return
    for r in rows:
        state = "revoked" if r["revoked_at"] else "active"
        click.echo(f"{r['key_id']}  {r['environment']:<10} {state:<8} "
                   f"signed={str(r['requires_signature']).lower():<5} "
                   f"{r['rate_limit_per_minute']}/min  {r['name']}  [{' '.join(r['scopes'])}]")


@group.command("reencrypt")
@click.option("--batch-size", type=click.IntRange(1, 10_000), default=DEFAULT_BATCH_SIZE,
              show_default=True, help="Keys per transaction.")
def keys_reencrypt(batch_size):
    """Seal every key's signing secret, every webhook endpoint's secret and the confirmation
    numbers' key under the current SECRET_KEY (after a rotation, with the old key in
    SECRET_KEY_PREVIOUS). Safe while the service runs; running it again reseals only what
    another key sealed."""
    report = reencrypt_signing_secrets(database(), _vault(), batch_size=batch_size)
    click.echo(f"resealed {report.resealed} signing secret(s) under the current SECRET_KEY; "
               f"{report.remaining} key(s) or webhook endpoint(s) still sealed under another key")
    if report.unopened:
        shown = " ".join(report.unopened[:20]) + (" ..." if len(report.unopened) > 20 else "")
        raise click.ClickException(
            f"{len(report.unopened)} key(s) or webhook endpoint(s) (we_...) open under neither "
            f"SECRET_KEY nor SECRET_KEY_PREVIOUS, so they cannot sign: {shown}. If their key "
            "was dropped too early, put it back in SECRET_KEY_PREVIOUS and run this again; "
            "else reissue the keys and have the partners recreate the endpoints (the "
            "confirmation_key cannot be made again: no booking can be made until its "
            "SECRET_KEY is back)")


def _vault() -> SigningVault:
    return SigningVault(settings().secret_key, settings().secret_key_previous)
