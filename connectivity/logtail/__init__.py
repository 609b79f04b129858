"""Reading an ordered log without a gap: the change feed's (availability/changes.py) and the
event log's (events/). One home for what both need: positions per origin, horizons, pruning
marks, the page's next position, and the signed packed cursor that carries a position."""
