"""PR #31147 (`ModelRunner.configure_kv_cache_dtype` -> `mem_cache/kv_cache_dtype.py`).

Data flows one way: loader -> configs -> observe -> compare/findings/coverage -> report;
run.check is the entry point (cli.check_trees calls it).
"""
