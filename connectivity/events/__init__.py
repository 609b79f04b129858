"""The event log of contract 12.2 (log.py: written by every area in its cause's transaction, read
by GET /events and the webhooks) and GET /events. A layer below the areas: each of them writes
its events here, and no area imports another."""
