"""A position in an ordered log: per origin (the node whose transaction ids a row carries; one,
0, on plain PostgreSQL) the (transaction id, row id) after which reading resumes. An origin a
position does not name is at (0, 0): from its first row."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Position:
    xid: int
    change_id: int  # the row id in its log (named for the change feed, its first log)


Positions = dict[int, Position]  # by origin

START = Position(0, 0)


def later(a: Position, b: Position) -> Position:
    return max(a, b, key=lambda p: (p.xid, p.change_id))


def positions_to_list(positions: Positions) -> list[int]:
    """[origin, xid, id, ...], origins in order: for storing a position (a webhook endpoint's),
    e.g. as a bigint[] or JSON."""
    return [n for origin in sorted(positions)
            for n in (origin, positions[origin].xid, positions[origin].change_id)]


def positions_from_list(numbers: list[int]) -> Positions:
    if len(numbers) % 3:
        raise ValueError("a position list holds (origin, xid, id) triples")
    return {numbers[i]: Position(numbers[i + 1], numbers[i + 2])
            for i in range(0, len(numbers), 3)}
