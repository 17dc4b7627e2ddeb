"""Reproducible product benchmarks: run each as a module, e.g. ``python -m benchmarks.tm_search --help``."""
