"""Operations of the specification not built yet. Each answers 501 `not_implemented`, but only
after the guards ran, so its 401, 403 and 429 answers are already the final ones."""

from .errors import NotImplementedYet


def not_implemented():
    raise NotImplementedYet("this operation is specified but not available yet")
