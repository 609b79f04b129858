"""The bounds of a pushed ARI item and of a push (the specification's tables), read by the
request schemas and by quick_items' fast reading of PUT /ari alike."""

from __future__ import annotations

MAX_ARI_ITEMS = 5000  # a hard cap: larger pushes are split
MAX_RESTRICTION_ITEMS = 1000
AVAILABILITY = (0, 9999)  # rooms left to sell, inclusive
STAY_NIGHTS = (1, 365)  # min_stay and max_stay, inclusive
