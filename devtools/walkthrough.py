"""The walk-through `make run` prints: the afternoon's whole flow (ping, search, quote, book,
the hotel's channel manager acknowledging the booking with the hotel's own code and the booking
partner reading that code on its booking, cancel, the booking arriving at the channel manager as
events, a signed ARI push and its batch) as shell commands with this sandbox's tokens filled in.
It needs bash, curl (7.76 or later, for --fail-with-body), openssl and python3, and works as
printed: tests/operator/test_walkthrough.py runs it against a live service."""

from __future__ import annotations

import json
import shlex
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from connectivity import API_PREFIX

HOTEL, ROOM_TYPE, RATE_PLAN = "ACME-LIS", "ACME-DBL", "ACME-BAR"
HOTEL_TIMEZONE = "Europe/Lisbon"  # LIS1's, in docs/demo-catalog.json


def next_week_stay(now: datetime) -> tuple[date, date]:
    """Two nights a week ahead in the hotel's own today: clear of the demo ARI's restricted
    dates (connectivity/operator/demo_ari.py) and of "today" in any timezone."""
    check_in = now.astimezone(ZoneInfo(HOTEL_TIMEZONE)).date() + timedelta(days=7)
    return check_in, check_in + timedelta(days=2)

_SCRIPT = r"""# The whole flow against this sandbox (bash; curl, openssl and python3 on PATH).
ORIGIN={origin}
API={api}
PULL={pull}
PUSH_KEY_ID={push_key_id}
PUSH_SECRET={push_secret}
CHANNEL={channel}
JSON='Content-Type: application/json'
STAY={stay}
# step TEXT: a heading before a step's output, so each answer says which step it is
step() {{ printf '\n== %s\n' "$*"; }}
# field NAME: one field of the answer's data, read from stdin
field() {{ python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][sys.argv[1]])' "$1"; }}

# 1. Is the service up, and is this machine's clock right? (server_time)
step "1. ping"
curl -sS --fail-with-body "$ORIGIN$API/ping" -H "$PULL"; echo

# 2. Which hotels sell the stay, and from what total?
step "2. search"
curl -sS --fail-with-body -X POST "$ORIGIN$API/availability/search" -H "$PULL" -H "$JSON" \
  -d "{{\"hotel_codes\": [\"ACME-LIS\", \"ACME-OPO\"], $STAY}}"; echo

# 3. Quote one room type and plan: the token holds the price for 15 minutes.
QUOTE=$(curl -sS --fail-with-body -X POST "$ORIGIN$API/bookings/quote" -H "$PULL" -H "$JSON" \
  -d "{{\"hotel_code\": \"{hotel}\", \"room_type_code\": \"{room_type}\", \"rate_plan_code\": \"{rate_plan}\", $STAY}}")
step "3. quote"; echo "$QUOTE"

# 4. Book it. Your partner_reference makes a retry safe: the same one never books twice.
REF="walkthrough-$(date +%s)-$RANDOM"
BOOKING=$(printf '%s' "$QUOTE" | python3 -c '
import json, sys
quote = json.load(sys.stdin)["data"]
print(json.dumps({{
    "partner_reference": sys.argv[1], "quote_token": quote["quote_token"],
    "hotel_code": quote["hotel_code"], "room_type_code": quote["room_type_code"],
    "rate_plan_code": quote["rate_plan_code"], "check_in": quote["check_in"],
    "check_out": quote["check_out"], "rooms": quote["rooms"],
    "total_amount": quote["total_amount"], "currency": quote["currency"],
    "guests": [{{"room_number": 1, "first_name": "Ana", "last_name": "Silva", "is_adult": True}},
               {{"room_number": 1, "first_name": "Rui", "last_name": "Silva", "is_adult": True}}],
    "contact": {{"first_name": "Ana", "email": "ana@example.com"}}}}))' "$REF")
BOOKED=$(curl -sS --fail-with-body -X POST "$ORIGIN$API/bookings" -H "$PULL" -H "$JSON" -d "$BOOKING")
step "4. book ($REF)"; echo "$BOOKED"
NUMBER=$(printf '%s' "$BOOKED" | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["booking"]["confirmation_number"])')

# 5. The hotel's channel manager loads the booking into the hotel's system (it hears of it by
#    its events, step 7, or GET /hotel-bookings?acknowledged=false) and acknowledges it, with
#    the hotel's own confirmation code.
step "5. the hotel's channel manager acknowledges $NUMBER"
curl -sS --fail-with-body -X POST "$ORIGIN$API/hotel-bookings/$NUMBER/acknowledge" -H "$CHANNEL" \
  -H "$JSON" -d '{{"status": "confirmed", "hotel_confirmation_code": "LIS-20417"}}'; echo

# 6. The booking partner sees the hotel's code on its booking (and gets booking.hotel_confirmed).
step "6. the booking, with the hotel's code"
curl -sS --fail-with-body "$ORIGIN$API/bookings/$REF" -H "$PULL"; echo

# 7. Cancel it (the answer says the penalty); the hotel must then acknowledge the cancellation.
step "7. cancel ($REF)"
curl -sS --fail-with-body -X POST "$ORIGIN$API/bookings/$REF/cancel" -H "$PULL" -H "$JSON" -d '{{}}'; echo

# 8. The hotel's channel manager receives the booking and its cancellation as events, in its
#    own codes (GET /events; within about a second of each commit).
for attempt in $(seq 1 30); do
  EVENTS=$(curl -sS --fail-with-body -H "$CHANNEL" \
    "$ORIGIN$API/events?types=hotel_booking.confirmed,hotel_booking.cancelled")
  case $EVENTS in *hotel_booking.cancelled*) break ;; *) sleep 1 ;; esac
done
step "8. the hotel's channel manager's events"; echo "$EVENTS"

# 9. Push ARI with the signed key: HMAC-SHA256 of
#    METHOD \n path?query \n timestamp \n nonce \n hex(sha256(body)), keyed with the secret.
# signed METHOD PATH [BODY]
signed() {{
  local ts nonce body_hash signature
  ts=$(date +%s)
  nonce=$(openssl rand -hex 16)
  body_hash=$(printf '%s' "${{3-}}" | openssl dgst -sha256 -r | cut -d' ' -f1)
  signature=$(printf '%s\n%s\n%s\n%s\n%s' "$1" "$API$2" "$ts" "$nonce" "$body_hash" \
    | openssl dgst -sha256 -hmac "$PUSH_SECRET" -r | cut -d' ' -f1)
  if [ -n "${{3-}}" ]; then set -- "$1" "$2" -H "$JSON" --data-binary "$3"; else set -- "$1" "$2"; fi
  curl -sS --fail-with-body -X "$1" "$ORIGIN$API$2" -H "X-Api-Key-Id: $PUSH_KEY_ID" \
    -H "X-Timestamp: $ts" -H "X-Nonce: $nonce" -H "X-Signature: $signature" "${{@:3}}"
}}
ARI={ari}
ACCEPTED=$(signed PUT /ari "$ARI"); step "9. signed ARI push (202: accepted, queued)"
echo "$ACCEPTED"
BATCH_ID=$(printf '%s' "$ACCEPTED" | field batch_id)

# 10. The batch is applied in the background: read its outcome until it is final.
for attempt in $(seq 1 60); do
  BATCH=$(signed GET "/ari/batches/$BATCH_ID")
  case $(printf '%s' "$BATCH" | field status) in queued|processing) sleep 1 ;; *) break ;; esac
done
step "10. the batch's outcome"; echo "$BATCH"
"""


def walkthrough(origin: str, pull_token: str, push_key_id: str, push_secret: str,
                check_in: date, check_out: date, *, channel_token: str) -> str:
    """`channel_token`: a key of the partner receiving HOTEL's bookings, holding
    reservation.write."""
    stay = (f'"check_in": "{check_in.isoformat()}", "check_out": "{check_out.isoformat()}", '
            '"rooms": 1, "occupancy": [{"adults": 2}]')
    ari = json.dumps({"hotel_code": HOTEL, "items": [
        {"room_type_code": ROOM_TYPE, "rate_plan_code": RATE_PLAN, "date": check_in.isoformat(),
         "availability": 9, "rate": 140}]})
    return _SCRIPT.format(
        origin=shlex.quote(origin), api=shlex.quote(API_PREFIX),
        pull=shlex.quote(f"Authorization: Bearer {pull_token}"),
        push_key_id=shlex.quote(push_key_id), push_secret=shlex.quote(push_secret),
        channel=shlex.quote(f"Authorization: Bearer {channel_token}"),
        stay=shlex.quote(stay), ari=shlex.quote(ari),
        hotel=HOTEL, room_type=ROOM_TYPE, rate_plan=RATE_PLAN)
