"""The benchmark harness (`make bench`): a seeded data set of 1,000 properties with a year of ARI,
the service under gunicorn exactly as the Procfile runs it, a lean load driver, and a registry
of scenarios whose figures (p50, p99, requests/s) go to bench/results/ and docs/benchmarks.md.

A benchmark, not a test: nothing here asserts; targets are reported as met or missed."""
