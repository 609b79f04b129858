"""What reading through the machine's model host costs against a model in the process: the same
searches (200 hotels x 7 nights) and rates reads (1 hotel x 14 nights), 300 each, first from a
SearchModel in this process, then through a model host of its own (read_model/host.py), with
the CPU of this process and of the host counted apart. Both models hold every hotel and catch
up only once a minute, so that what is measured is the read, not a catch-up.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pcs_bench python -m bench.model_host_cpu

(the bench's data set must exist: `make bench` once)."""

from __future__ import annotations

import datetime as dt
import os
import tempfile
import time
from pathlib import Path

import psycopg

from connectivity.availability.read_model import HostedModel, SearchModel
from connectivity.availability.read_model.host import socket_key
from connectivity.store.database import Database
from devtools.live import procfile_process

from .cpu import cpu_seconds
from .dataset import Spec, hotel_codes

READS = 300
KEY = "model-host-cpu-" + "x" * 32


def measure(model, partner_id: int, environment: str, codes: list[str], host_pid: int | None):
    today, now = dt.date.today(), dt.datetime.now(dt.UTC)

    def search(i):
        check_in = today + dt.timedelta(days=1 + i % 60)
        asked = codes[i * 200 % (len(codes) - 200):][:200]
        request = {"hotel_codes": asked, "check_in": check_in,
                   "check_out": check_in + dt.timedelta(days=7), "rooms": 1,
                   "occupancy": [{"adults": 2}]}
        return model.search_rows(partner_id, environment, asked, request, now, lambda _: [],
                                 b"bench")

    def rates(i):
        check_in = today + dt.timedelta(days=1 + i % 60)
        return model.rates_view(partner_id, environment, codes[i * 7 % len(codes)], check_in,
                                check_in + dt.timedelta(days=14), b"bench")
    for i in range(30):  # warm: the fence's first catch-up, caches
        search(i)
        rates(i)
    figures = {}
    for name, read in (("search", search), ("rates", rates)):
        mine, theirs = time.process_time(), cpu_seconds(host_pid) if host_pid else 0.0
        for i in range(READS):
            read(i)
        figures[name] = ((time.process_time() - mine) * 1000 / READS,
                         ((cpu_seconds(host_pid) - theirs) * 1000 / READS) if host_pid else 0.0)
    return figures


def main() -> int:
    url = os.environ["DATABASE_URL"]
    hotels = Spec().properties
    with psycopg.connect(url) as conn:
        partner_id, environment = conn.execute(
            "SELECT partner_id, environment FROM partner_properties WHERE hotel_code = %s",
            (hotel_codes(Spec())[0],)).fetchone()
    codes = hotel_codes(Spec())
    db = Database(url, max_size=2)
    own = SearchModel(db, background=True, refresh_seconds=60)
    own.preload()
    while own.held() < hotels:
        time.sleep(1)
    results = {"in the process": measure(own, partner_id, environment, codes, None)}
    del own
    path = Path(tempfile.mkdtemp(prefix="pcs-host-cpu-")) / "host.sock"
    with procfile_process("connectivity.availability.read_model.host", {
            "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            "SECRET_KEY": KEY, "SEARCH_MODEL_SOCKET": str(path), "SEARCH_MODEL_PRELOAD": "on",
            "SEARCH_MODEL_REFRESH_SECONDS": "60"}) as host:
        while not path.exists():
            time.sleep(0.1)
        hosted = HostedModel(str(path), socket_key(KEY))
        while hosted.held() < hotels:
            time.sleep(1)
        results["through the host"] = measure(hosted, partner_id, environment, codes, host.pid)
    for where, figures in results.items():
        print(where + ": " + "; ".join(
            f"{name} {mine:.2f} ms here + {theirs:.2f} ms in the host = {mine + theirs:.2f} ms"
            for name, (mine, theirs) in figures.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
