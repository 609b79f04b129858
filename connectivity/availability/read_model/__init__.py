"""Search's read model: the grids (availability/grid.py) of the properties searched, held in
memory and kept current by the change feed's log, so that a search of 200 hotels reads no day
row from PostgreSQL. Rates reads one hotel's days and catalogue from it too
(`SearchModel.rates_view`; availability/rates.py).

One copy per machine: under gunicorn the model host holds it (host.py, started and restarted
by the master: supervisor.py) and every worker reads it through a socket (remote.py's
HostedModel, with SearchModel's two reads); without a master (tests, `flask run`), or with
SEARCH_MODEL_SHARED off, a process holds its own (building.py builds it either way).

One job a file: model.py (its state), answering.py (search and rates from what it holds),
catching_up.py (the change log replayed onto it), loading.py (hotels loaded and held),
snapshots.py (the copy written to the database and read back by a host that starts empty) and
snapshot_store.py (where), held.py (what a request reads of one held hotel), rows.py (statement
rows to arrays and objects), metrics.py; building.py, host.py, remote.py, channel.py (their
wire) and supervisor.py (one copy per machine).

Freshness (contract 13.1): a request catches up first unless the model's last catch-up began
under a token that covers the read fence's token the request read (store/read_fence.py: the
same, or an earlier count of the same epoch): every write acknowledged before the request began
had then committed before that catch-up read the log. A catch-up reads the changes after the
model's position (between full ones, only of the properties the fence's moves named since its
last token, when they named them all) and reloads what they name, a hotel's changed days, or the
whole hotel for a catalogue (`content`) or pause (`distribution`) change; a request none of
whose held hotels a move named since that token needs none (catching_up.py `refresh`). Every
committed ARI apply, booking, cancellation, pushed reservation, pause and catalogue load writes
such a row in its own transaction. Unlike the feed, which serves only what lies below each
origin's horizon, the model applies a change as soon as it has committed and reads it again,
without applying it, until the horizon passes it: a long transaction anywhere on the node holds
the feed back, not search. Loads and catch-ups run one at a time under one lock, so a change
read before a load is reflected in it (the load's snapshot is later) and one read after it is
replayed onto it.

Exactness: what the model does not hold exactly, or at all, goes to the reference statement
(search.sql) for those hotels only: a hotel not loaded yet (loaded in the background for the
next searches), a stay outside the loaded days, a price the integer layout cannot hold. FX
rates are never kept: a search that converts reads them."""

from connectivity.availability.read_model.answering import RatesView
from connectivity.availability.read_model.held import Held, RatesCatalogue
from connectivity.availability.read_model.mapped import MappedRates
from connectivity.availability.read_model.metrics import HOTELS, RATES
from connectivity.availability.read_model.model import SearchModel
from connectivity.availability.read_model.remote import HostedModel

# What search and rates read: the machine's model host, or a model of the process's own.
ReadModel = SearchModel | HostedModel

__all__ = ["HOTELS", "RATES", "Held", "HostedModel", "MappedRates", "RatesCatalogue", "RatesView",
           "ReadModel", "SearchModel"]
