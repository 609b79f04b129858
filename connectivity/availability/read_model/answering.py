"""Answering search and rates from what the model holds (a mixin of SearchModel): the hotels
it holds exactly are evaluated together with numpy, the rest go to the reference statement."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from connectivity.availability.grid import Conversion, cheapest, cheapest_in_arena, to_money
from connectivity.availability.offers import fx_table
from connectivity.availability.stay import property_today
from connectivity.pricing import OccupancyError, normalise_occupancy
from connectivity.pricing.money import CurrencyNotSupported as NoFxRate
from connectivity.pricing.money import FxTable
from connectivity.web.errors import ValidationFailed
from connectivity.availability.read_model.metrics import HOTELS, RATES
from connectivity.availability.read_model.held import Held, Rows

UNCONVERTIBLE = Conversion("", {})  # a hotel with a mapped plan no FX rate converts
Reference = Callable[[list[str]], Rows]


@dataclass(frozen=True, slots=True)
class RatesView:
    """One hotel's stay as POST /availability/rates reads it from the model: the mapping's
    offers as offers.sql lists them (narrowed to the request's codes) and their days
    (PropertyGrid.stay_days: money, plan flags, room flags, available rooms)."""
    code: str
    currency: str
    timezone: str
    max_child_age: int
    offers: list[dict]
    days: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

    def __reduce__(self):
        # Sent by the model host with every rates read: the days as their bytes, dtype and
        # shape, which pickle copies as they are. Pickled as arrays (and the view through the
        # slots dataclass's __getstate__) each array's dtype is reduced by a Python function,
        # on both sides: about a third of the view's pickling CPU (docs/benchmarks-history.md).
        return (_rates_view, (self.code, self.currency, self.timezone, self.max_child_age,
                              self.offers, [(a.dtype.str, a.shape, a.tobytes())
                                            for a in self.days]))


def _rates_view(code: str, currency: str, timezone: str, max_child_age: int, offers: list[dict],
                days: list[tuple[str, tuple[int, ...], bytes]]) -> RatesView:
    """A RatesView as its __reduce__ sent it; the days read-only (views of the bytes received:
    rates reads them, never writes them)."""
    return RatesView(code, currency, timezone, max_child_age, offers,
                     tuple(np.frombuffer(data, dtype).reshape(shape)
                           for dtype, shape, data in days))


# A hotel's row as the model answers it: (hotel_code, currency, timezone, check_in_past,
# currency_unsupported, lowest total in millionths of the currency or None).
Answer = tuple[str, str, str, bool, bool, int | None]


def as_rows(answers: list[Answer]) -> Rows:
    """Answers as search.sql's rows (the amount a Decimal in the currency's minor units)."""
    return [{"hotel_code": code, "currency": currency, "timezone": timezone,
             "check_in_past": past, "currency_unsupported": unsupported,
             "lowest_total_amount": None if best is None else to_money(best, currency)}
            for code, currency, timezone, past, unsupported, best in answers]


def merged(codes: list[str], rows: Rows, rest: list[str], reference: Reference) -> Rows:
    """The model's rows (`held_answers`) and the statement's for `rest`, in the codes' order."""
    if not rest:
        return rows  # in the codes' order already
    found = {row["hotel_code"]: row for row in reference(rest)}
    for row in rows:
        found[row["hotel_code"]] = row
    return [found[c] for c in codes if c in found]


class Answering:
    """SearchModel's answers (read_model/model.py holds its state)."""

    def search_rows(self, partner_id: int, environment: str, codes: list[str], request: dict,
                    now: dt.datetime, reference: Reference, fence: bytes | None) -> Rows:
        """search.sql's rows for `codes`, in their order: from the model where it holds the
        hotel exactly, from `reference` (the statement, for the codes given) for the rest.
        `fence`: the read fence's token as the request read it (`refresh`)."""
        answers, rest = self.held_answers(partner_id, environment, codes, request, now, fence)
        return merged(codes, as_rows(answers), rest, reference)

    def held_answers(self, partner_id: int, environment: str, codes: list[str], request: dict,
                     now: dt.datetime, fence: bytes | None) -> tuple[list[Answer], list[str]]:
        """The answers of the codes the model holds, in their order, and the codes it leaves
        to the statement (`rest`: not held yet, not exact, or the stay outside its days; those
        not held are loaded for the next searches). A paused hotel is in neither: unknown, as
        search.sql answers it. Tuples, not search.sql's dicts: what the model host sends a
        worker (a third of the pickling of dicts with Decimals)."""
        held_now = self._codes.get((partner_id, environment), {})
        found = {code: held_now.get(code) for code in codes}
        # Loading inline, a hotel not held is loaded now and answered: the model current first.
        inline = not self._background and None in found.values()
        current = self.refresh(fence, None if inline else
                               {h.grid.property_id for h in found.values() if h})
        if not self._background:
            self._want(partner_id, environment, [c for c, h in found.items() if h is None])
            self.load_wanted()
        check_in, check_out = request["check_in"], request["check_out"]
        target = request.get("currency")
        fast: list[Held] = []
        rest: list[str] = []
        held_of = self._codes.get((partner_id, environment), {}) if current else found
        for code in codes:
            held = held_of.get(code)
            if held is None:
                rest.append(code)
                continue
            if not held.active:
                continue  # a paused hotel is not sold: unknown, as search.sql answers
            if not held.exact or not held.covers(check_in, check_out):
                rest.append(code)
                continue
            fast.append(held)
        if rest and self._background:
            self._want(partner_id, environment, [c for c in rest if held_of.get(c) is None])
        HOTELS.labels("reference").inc(len(rest))
        HOTELS.labels("model").inc(len(fast))
        return (self._evaluate(fast, request, now, target) if fast else []), rest

    def _conversions(self, fast: list[Held], target) -> list[Conversion | None]:
        """Per hotel, None when its mapped plans are all in the answer's currency, else the
        multipliers: read now (FX rates are never kept), as search.sql reads them."""
        if target is None:
            converts_nothing = all(held.native for held in fast)
        else:
            converts_nothing = all(held.converts_nothing_into(target) for held in fast)
        if converts_nothing:  # nearly always
            return [None] * len(fast)
        tables: dict[str, FxTable] = {}
        out = []
        for held in fast:
            mapping = held.mapping
            currency = target or held.currency
            if held.converts_nothing_into(currency):
                out.append(None)
                continue
            if currency not in tables:
                with self._reads.connection() as conn:
                    tables[currency] = fx_table(conn, currency)
            rates = {}
            for source in mapping.currencies - {currency}:
                try:
                    rates[source] = tables[currency].rate(source, currency)
                except NoFxRate:
                    rates = None
                    break
            out.append(Conversion(currency, rates) if rates is not None else UNCONVERTIBLE)
        return out

    def _evaluate(self, fast, request, now, target) -> list[Answer]:
        """The answers of the hotels the model holds."""
        return self._read(lambda: self._evaluate_once(fast, request, now, target))

    def _read(self, read: Callable):
        """read() of what the model holds, without a lock: a catch-up that rewrote days in
        place meanwhile (Arenas.writes moved) makes it read again, the second time under the
        lock."""
        arenas = self._arenas
        for _ in range(2):
            writes = arenas.writes
            if writes % 2:
                continue  # a write under way
            try:
                got = read()
            except (IndexError, ValueError):
                if arenas.writes == writes:
                    raise
                continue
            if arenas.writes == writes:
                return got
        with self._lock:
            return read()

    # --- rates ----------------------------------------------------------------------------

    def rates_view(self, partner_id: int, environment: str, code: str, check_in: dt.date,
                   check_out: dt.date, fence: bytes | None,
                   room_type_codes: list[str] | None = None,
                   rate_plan_codes: list[str] | None = None) -> RatesView | None:
        """What POST /availability/rates answers a stay of `code` from, caught up as search is,
        or None when the model cannot answer it (the statements do then)."""
        held = self.selling(partner_id, environment, code, check_in, check_out, fence)
        if held is None:
            return None
        offers, local = held.rate_offers(room_type_codes, rate_plan_codes)
        return RatesView(held.code, held.currency, held.timezone, held.max_child_age, offers,
                         self.stay_days(held, local, check_in, check_out))

    def selling(self, partner_id: int, environment: str, code: str, check_in: dt.date,
                check_out: dt.date, fence: bytes | None) -> Held | None:
        """The caught-up Held that POST /availability/rates answers a stay of `code` from, or
        None when the model cannot answer it (the statements do then): not held (it is loaded
        for the next request), paused (their 404 is the one answer), not exact, or the stay
        outside its days. `fence`: as `search_rows` takes it."""
        found = self._codes.get((partner_id, environment), {}).get(code)
        inline = not self._background and found is None  # as in held_answers
        current = self.refresh(fence, None if inline else
                               set() if found is None else {found.grid.property_id})
        held = self._codes.get((partner_id, environment), {}).get(code) if current else found
        if held is None:
            self._want(partner_id, environment, [code])
            if inline:
                self.load_wanted()
                held = self._codes.get((partner_id, environment), {}).get(code)
        if (held is None or not held.active or not held.exact
                or not held.covers(check_in, check_out)):
            RATES.labels("statements").inc()
            return None
        RATES.labels("model").inc()
        return held

    def stay_days(self, held: Held, local: np.ndarray, check_in: dt.date, check_out: dt.date):
        """PropertyGrid.stay_days of the stay's nights and its check-out day, consistent (no
        in-place rewrite of them read half before, half after)."""
        width = (check_out - check_in).days + 1
        first = (check_in - held.start).days
        return self._read(lambda: held.grid.stay_days(local, first, width))

    def _evaluate_once(self, fast: list[Held], request, now, target) -> list[Answer]:
        """The answers of `fast`, in its order."""
        check_in, check_out = request["check_in"], request["check_out"]
        # Hotels whose child age turns the request into the same rooms are evaluated together.
        parties: dict[int, tuple] = {}
        for age in {held.max_child_age for held in fast}:
            try:
                parties[age] = tuple(normalise_occupancy(request["occupancy"], request["rooms"],
                                                         age))
            except OccupancyError as exc:  # the schema checks the same; never a 500
                raise ValidationFailed(exc.fields) from None
        if len(set(parties.values())) == 1:
            groups = {next(iter(parties.values())): fast}
        else:
            groups = {}
            for held in fast:
                groups.setdefault(parties[held.max_child_age], []).append(held)
        today: dict[str, bool] = {}  # timezone -> check-in already past there
        rows = []
        for occupancy, items in groups.items():
            conversions = self._conversions(items, target)
            # An unconvertible hotel makes search.py refuse the search: its total is not used.
            lowest = self._cheapest(items, check_in, check_out, occupancy,
                                    request.get("nationality"),
                                    [None if c is UNCONVERTIBLE else c for c in conversions])
            for held, best, conversion in zip(items, lowest, conversions):
                currency, timezone = target or held.currency, held.timezone
                if conversion is UNCONVERTIBLE:
                    best = None
                past = today.get(timezone)
                if past is None:
                    past = today[timezone] = check_in < property_today(timezone, now)
                rows.append((held.code, currency, timezone, past, conversion is UNCONVERTIBLE,
                             best))
        if len(groups) > 1:  # back to the order of `fast`
            order = {held.code: at for at, held in enumerate(fast)}
            rows.sort(key=lambda row: order[row[0]])
        return rows

    @staticmethod
    def _cheapest(items: list[Held], check_in, check_out, occupancy, nationality,
                  conversions) -> list[int | None]:
        """grid.cheapest, from the arena rows each Held keeps when all lie in one arena."""
        grids = [held.offers for held in items]
        arena = items[0].arena
        if any(held.arena is not arena for held in items):
            return cheapest(grids, check_in, check_out, occupancy, nationality, conversions)
        return cheapest_in_arena(grids, np.concatenate([held.columns for held in items], axis=1),
                                 check_in, check_out, occupancy, nationality, conversions)
