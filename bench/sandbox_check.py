"""What the X-Sandbox-Scenario check adds to every guarded request (docs/benchmarks.md, "The
sandbox scenario check"), in-process: a no-op view called alone and behind
`web.forced_outcomes.forcible`, in a request without the header (every production request), best
of five runs of 200,000 calls. No server, no database: the app is built only for its request
context.

    .venv/bin/python -m bench.sandbox_check
"""

from __future__ import annotations

import timeit

from app import create_app
from connectivity.web.forced_outcomes import forcible
from connectivity.settings import Settings

CALLS, REPEATS = 200_000, 5


def main() -> None:
    app = create_app(Settings(database_url="postgresql://unused@127.0.0.1:1/unused",
                              redis_url="redis://127.0.0.1:1/0", secret_key="b" * 40))

    def view():
        return None

    checked = forcible(view)
    with app.test_request_context("/api/connectivity/v1/ping"):
        alone = min(timeit.repeat(view, number=CALLS, repeat=REPEATS)) / CALLS * 1e6
        behind = min(timeit.repeat(checked, number=CALLS, repeat=REPEATS)) / CALLS * 1e6
    print(f"view alone {alone:.3f} us; behind the scenario check {behind:.3f} us; "
          f"the check costs {behind - alone:.3f} us per request")


if __name__ == "__main__":
    main()
