"""Differential equivalence harness for method extractions in sglang.

`cli.py` turns the command line into labelled trees and pairs; `engine/` holds what is generic
(stubbed imports, branch coverage, temporary trees); `presets/kv_dtype/` is PR #31147's check
(its inputs, findings, fixes' deltas and mutants). See README "Reviewing".
"""
