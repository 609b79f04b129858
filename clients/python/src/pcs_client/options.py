"""Keyword options checked against the ones a call takes: an unknown one (a typo, or the
TypeScript client's camelCase name) raises UnknownOption naming the nearest known one, before
anything is sent; never passed through, never dropped. The same rule, and the same nearest
name, as the TypeScript client's (clients/typescript/src/options.js)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Sequence
from typing import Callable, TypeVar

from .errors import UnknownOption

F = TypeVar("F", bound=Callable)
_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _folded(name: str) -> str:
    # Case, `_` and `-` aside: `expectedPenaltyAmount` is `expected_penalty_amount` misspelt by 0.
    return name.lower().replace("_", "").replace("-", "")


def _distance(a: str, b: str) -> int:
    """Levenshtein, one row at a time."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        nxt = [i]
        for j, cb in enumerate(b, 1):
            nxt.append(min(row[j] + 1, nxt[j - 1] + 1, row[j - 1] + (ca != cb)))
        row = nxt
    return row[-1]


def _apart(a: str, b: str) -> int:
    """How far `b` is from `a`, folded: 0 the same, 1 one inside the other (`poll` and
    `poll_seconds`), else their edit distance."""
    a, b = _folded(a), _folded(b)
    return 0 if a == b else 1 if a in b or b in a else _distance(a, b)


def nearest(name: str, known: Sequence[str]) -> str:
    """The known name nearest to `name` (the first of equals, in the order given)."""
    return min(known, key=lambda candidate: _apart(name, candidate))


def checks_options(function: F) -> F:
    """`function` refusing a keyword it does not take with UnknownOption (a TypeError too),
    which names the nearest one, where Python's own TypeError would not."""
    known = tuple(name for name, p in inspect.signature(function).parameters.items()
                  if p.kind in _NAMED and name != "self")
    call = (function.__qualname__.split(".")[0] if function.__name__ == "__init__"
            else function.__name__) + "()"

    @functools.wraps(function)
    def checked(*args, **kwargs):
        for key in kwargs:
            if key not in known:
                raise UnknownOption(call, key, known, nearest(key, known))
        return function(*args, **kwargs)
    return checked  # type: ignore[return-value]
