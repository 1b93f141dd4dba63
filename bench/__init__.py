"""Benchmarks: `python -m bench.NAME [--quick]` from the repository root; results and commands in bench/RESULTS.md.

Every timing is interleaved against a reference measured in the same run (`bench/common.py`).
"""
