"""Differential equivalence harness for the kv-cache-dtype extraction (sglang PR #31147).

Data flows one way: loader -> configs -> observe -> compare/findings/coverage -> report.
`python -m equivalence BEFORE AFTER` or `python -m equivalence --steps PATH`; see cli.py.
"""
