"""PR #31147's preset (`ModelRunner.configure_kv_cache_dtype` -> `mem_cache/kv_cache_dtype.py`),
on the generic engine: `subject` (the method, torch an input) -> `hints` (the values of the
inputs the review names, their product as the configurations) -> engine pairs -> `observed`
(the kv effects of an observation) -> `findings`, `intended` (a fix's delta), `mutants` ->
`report`; `check.check` is the entry point, `preset` the command line's subject (it calls
check.check, and gives `--steps` the kv codemod and its `fixes`).
"""
