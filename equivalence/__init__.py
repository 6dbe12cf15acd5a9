"""Differential equivalence harness for method extractions in sglang.

`cli.py` turns the command line into a subject (`subject.py`, chosen by `subjects.choose`),
labelled trees and pairs (`versions/`: two trees, a codemod's steps, revisions of a git
checkout); `engine/` is the generic check of any extraction (`subjects/method.py`, `python -m
equivalence --method`); `component/` checks a component extraction on it (sequences of calls,
`--component`); `presets/kv_dtype/` is PR #31147's preset on it (the values of its inputs, its
findings, fixes' deltas and mutants). See docs/proof.md.
"""

from pysource.commands import one_line_on_interrupt

one_line_on_interrupt(__name__, "equivalence: interrupted")  # a Ctrl-C while it imports
