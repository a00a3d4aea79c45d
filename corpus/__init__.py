"""Generators of histories with known true counts, for the tests and the benchmark (not installed with bough)."""
