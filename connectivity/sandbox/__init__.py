"""Sandbox scenarios (contract 11.4): the `X-Sandbox-Scenario` header lets an integrator force an
outcome on a sandbox key to test its error handling, with answers built from its real request.

A plug-in of the web's forced outcomes (web/forced_outcomes.py), registered by app.py; the areas
never import it. scenarios.py holds the catalogue and the plug-in's judgement of the header;
operations.py which scenarios each operation honours beyond the faults, and how each is
answered; pull.py the forced answers of search, rates, quote, booking and cancel; openapi.py
documents the header on every guarded operation."""
