"""Benchmarks: the schema sync and the lineage emission at N schemas, next to the seed design's algorithm.

`make bench` runs `python -m bench.run` (see bench/run.py for the options and docs/performance.md
for measured figures).
"""
