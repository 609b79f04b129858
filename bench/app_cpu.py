"""Rates' and search's CPU per request through the whole Flask app (its test client: routing,
authentication, the rate limit's round trip, the read model, the JSON) in one process, on the
bench data set, where neither gunicorn nor the machine's other work reaches the figure. Run it
from the root of each checkout to compare two versions of the code in one sitting:

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pcs_bench REDIS_URL=redis://127.0.0.1:6379/3 \\
        python -m bench.app_cpu"""

from __future__ import annotations

import datetime as dt
import os
import time

import psycopg
from psycopg.rows import dict_row

from app import create_app
from connectivity.auth.credentials import SigningVault
from connectivity.operator.keys import issue_key
from connectivity.settings import Settings
from devtools.stack import LOCAL, secret_key

from .dataset import ALL_PARTNER

API = "/api/connectivity/v1"


def main() -> None:
    url = os.environ["DATABASE_URL"]
    key = secret_key(LOCAL / "bench-secret_key")
    app = create_app(Settings(database_url=url, redis_url=os.environ["REDIS_URL"],
                              secret_key=key, redis_prefix="pcs-app-cpu:",
                              search_model_loading="inline"))
    with psycopg.connect(url, row_factory=dict_row) as conn:
        token = issue_key(conn, SigningVault(key), partner_code=ALL_PARTNER, name="app_cpu",
                          environment="sandbox", preset="pull", signed=False,
                          rate_limit=100000).token
        codes = [r["hotel_code"] for r in conn.execute(
            "SELECT pp.hotel_code FROM partner_properties pp JOIN partners p ON p.id = "
            "pp.partner_id WHERE p.code = %s ORDER BY pp.hotel_code LIMIT 200", (ALL_PARTNER,))]
        conn.commit()
    client, headers = app.test_client(), {"Authorization": f"Bearer {token}"}
    start = dt.date.today() + dt.timedelta(days=3)

    def stay(i: int, nights: int) -> dict:
        check_in = start + dt.timedelta(days=i % 30)
        return {"check_in": check_in.isoformat(),
                "check_out": (check_in + dt.timedelta(days=nights)).isoformat(),
                "rooms": 1, "occupancy": [{"adults": 2}]}

    def rates(i: int):
        return client.post(f"{API}/availability/rates",
                           json={"hotel_code": codes[i % 20], **stay(i, 14)}, headers=headers)

    def search(i: int):
        return client.post(f"{API}/availability/search",
                           json={"hotel_codes": codes, **stay(i, 7)}, headers=headers)
    for ask, warm in ((rates, 40), (search, 10)):  # the hotels loaded first
        for i in range(warm):
            assert ask(i).status_code == 200
    for name, ask, n in (("rates", rates, 1500), ("search", search, 400)):
        began = time.process_time()
        for i in range(n):
            assert ask(i).status_code == 200
        print(f"{name}: {(time.process_time() - began) * 1000 / n:.3f} ms of CPU a request "
              "(this process)")


if __name__ == "__main__":
    main()
