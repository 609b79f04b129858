"""Reading a /metrics page: {(name, sorted labels): value} of every sample."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(page: dict, name: str, **labels) -> float:
    """The sample's value; 0 when the series does not exist yet (a counter not yet touched)."""
    return page.get((name, tuple(sorted(labels.items()))), 0.0)
