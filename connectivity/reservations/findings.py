"""What a delivered reservation disagrees on, as reconciliation findings. Pure: plain values in
(a validated payload, the mapped codes, the nights taken), findings out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from connectivity.pricing.money import round_money
from connectivity.pricing.stay_nights import stay_nights


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    details: dict = field(default_factory=dict)

    def public(self) -> dict:
        return {"code": self.code, "message": self.message}


def unmapped_codes(rooms: list[dict], room_types: Mapping[str, int],
                   rate_plans: set[str]) -> list[Finding]:
    """Codes the caller has not mapped for the hotel: the rooms are kept as sent, but an
    unmapped room type takes no inventory."""
    findings = []
    bad_rooms = sorted({r["room_type_code"] for r in rooms if r["room_type_code"] not in room_types})
    if bad_rooms:
        findings.append(Finding(
            "unmapped_room_type",
            f"room type code(s) {', '.join(bad_rooms)} not mapped for this hotel: kept, no "
            "inventory taken for them",
            {"room_type_codes": bad_rooms}))
    bad_plans = sorted({r["rate_plan_code"] for r in rooms
                        if r.get("rate_plan_code") is not None
                        and r["rate_plan_code"] not in rate_plans})
    if bad_plans:
        findings.append(Finding(
            "unmapped_rate_plan",
            f"rate plan code(s) {', '.join(bad_plans)} not mapped for this hotel: kept",
            {"rate_plan_codes": bad_plans}))
    return findings


def nightly_rates_findings(reservation: dict) -> list[Finding]:
    """Contract 10: per-room-unit nightly rates times quantity, over all rooms, against
    `sell_amount` when sent (in `sell_currency`), else `net_amount` (in `net_currency`)."""
    nights = stay_nights(reservation["check_in"], reservation["check_out"])
    missing = []
    total = Decimal(0)
    for index, room in enumerate(reservation["rooms"]):
        rates = {r["date"]: r["amount"] for r in room.get("nightly_rates") or ()}
        absent = [d for d in nights if d not in rates]
        if absent:
            missing.append({"room": index, "room_type_code": room["room_type_code"],
                            "dates": [d.isoformat() for d in absent]})
        total += sum(rates.values(), Decimal(0)) * room["quantity"]
    if missing:
        return [Finding("nightly_rates_missing",
                        "nightly_rates missing for some nights: the total is unverified",
                        {"missing": missing})]
    if "sell_amount" in reservation:
        compared, amount, currency = "sell_amount", reservation["sell_amount"], \
            reservation["sell_currency"]
    else:
        compared, amount, currency = "net_amount", reservation["net_amount"], \
            reservation["net_currency"]
    expected = round_money(total, currency)
    if expected != round_money(amount, currency):
        return [Finding("nightly_rates_mismatch",
                        f"nightly_rates add up to {expected} {currency}, {compared} is "
                        f"{round_money(amount, currency)}",
                        {"nightly_total": str(expected), "compared_with": compared,
                         "amount": str(round_money(amount, currency)), "currency": currency})]
    return []


def shortfall(nights: Iterable[Mapping], code_of: Mapping[int, str]) -> list[Finding]:
    """Nights where fewer rooms were available than the reservation holds."""
    short = sorted(({"room_type_code": code_of[n["room_type_id"]], "date": n["date"].isoformat(),
                     "wanted": n["wanted"], "taken": n["taken"],
                     "short": n["wanted"] - n["taken"]}
                    for n in nights if n["taken"] < n["wanted"]),
                   key=lambda s: (s["room_type_code"], s["date"]))
    if not short:
        return []
    rooms = sum(s["short"] for s in short)
    return [Finding("inventory_shortfall",
                    f"{rooms} room-night(s) over {len(short)} night(s) could not be taken from "
                    "inventory; the reservation stands",
                    {"nights": short})]


def penalty_claim_differs(service: Decimal, currency: str, claim: Decimal | None,
                          claim_currency: str | None) -> list[Finding]:
    if claim is None:
        return []
    claim_currency = claim_currency or currency
    if claim_currency == currency and round_money(claim, currency) == service:
        return []
    return [Finding("penalty_claim_differs",
                    f"the partner claims a penalty of {claim} {claim_currency}; the service's "
                    f"is {service} {currency}",
                    {"partner_claim": str(claim), "partner_claim_currency": claim_currency,
                     "service_penalty": str(service), "currency": currency})]
