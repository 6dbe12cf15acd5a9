"""Differential equivalence harness for method extractions in sglang.

`cli.py` turns the command line into labelled trees and pairs (`revisions`, `git_review`: from
a git checkout); `engine/` is the generic check of any extraction (`python -m equivalence
--method`); `presets/kv_dtype/` is PR #31147's preset on it (the values of its inputs, its
findings, fixes' deltas and mutants). See README "Reviewing".
"""
