"""Sandbox scenarios (contract 11.4): the `X-Sandbox-Scenario` header lets an integrator force an
outcome on a sandbox key to test its error handling, with answers built from its real request.

scenarios.py holds the catalogue and the check every guarded operation runs after its field
rules; pull.py the forced answers of search, rates, quote, booking and cancel; openapi.py
documents the header on every operation that honours it."""
