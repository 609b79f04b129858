"""The only modules that touch a library's private internals. Each is small, says what it relies
on, and has a guard test (tests/adapters/test_library_internals.py) that fails loudly when an upgrade
changes it; nothing else in the service may reach past a library's public API."""
