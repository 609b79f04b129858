"""flask-smorest private internal: the `_apidoc` attribute its decorators write the operation's
documentation into, and that `Blueprint.route` reads from the registered view.

Relied on (flask-smorest 0.47): `Blueprint.alt_response(...)(view)` returns a wrapper carrying
`_apidoc["response"]["responses"][status]`, and the wrapper itself only calls the view. Moving
that `_apidoc` onto the view documents the status without the wrapper, which spares every request
one call layer per documented status (see `docs.error_responses`). Guarded by
tests/adapters/test_library_internals.py."""

from __future__ import annotations

from typing import Callable


def document_without_wrapping(view: Callable, decorated: Callable) -> Callable:
    """Give `view` the documentation flask-smorest put on `decorated` (a wrapper of `view` made by
    one of its response decorators); answer `view` itself, unwrapped."""
    view._apidoc = decorated._apidoc
    return view
