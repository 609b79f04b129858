"""Webhooks (contract 12.3): the partners' endpoints, and the delivery of the event log to them."""
