"""The read model's figures on GET /metrics: hotels answered by the model and by the statement
(the hit rate), rates requests by source, the properties and bytes held, the load time, when it
last caught up (staleness) and how long a catch-up takes."""

from __future__ import annotations


from prometheus_client import Counter, Gauge, Histogram

from connectivity.telemetry import REGISTRY

HOTELS = Counter("pcs_search_model_hotels", "Hotels answered by search, by source: the read "
                 "model or the reference statement (the model's hit rate).", ("source",),
                 registry=REGISTRY)
HELD = Gauge("pcs_search_model_properties", "Properties the web process's search model holds.",
             registry=REGISTRY, multiprocess_mode="liveall")
BYTES = Gauge("pcs_search_model_bytes", "Bytes of arrays the web process's search model holds.",
              registry=REGISTRY, multiprocess_mode="liveall")
LOADS = Histogram("pcs_search_model_load_seconds", "Time to load a batch of properties into "
                  "the search model (its rebuild time).", registry=REGISTRY,
                  buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
CATCH_UPS = Histogram("pcs_search_model_catch_up_seconds", "Time a catch-up with the change log "
                      "took (horizons, changes, the changed days reloaded): with the refresh "
                      "interval it bounds how late a committed change shows in search.",
                      registry=REGISTRY,
                      buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
REFRESHED = Gauge("pcs_search_model_refreshed_timestamp_seconds", "When the search model last "
                  "caught up with the change log (staleness: now minus this).",
                  registry=REGISTRY, multiprocess_mode="liveall")

RATES = Counter("pcs_rates_requests", "Rates requests by source: the read model (`model`; "
                "`mapped`: a web worker's read of the model host's arrays) or the statements "
                "(a hotel not held yet, a stay outside its days, a value the integers do not "
                "hold).", ("source",), registry=REGISTRY)
UNREACHABLE = Counter("pcs_search_model_host_unreachable", "Search and rates reads the machine's "
                      "model host did not answer (starting, restarting, or too slow): the "
                      "statements answered them.", registry=REGISTRY)
