"""LibCST codemods that reproduce mechanical sglang refactorings.

`codemods.refactoring` holds the generic engine (make a method static, move it to a
module, leave a wrapper, narrow its parameters, across the whole checkout);
`codemods.extract_method` runs it on any method (`python -m codemods.extract_method`);
`codemods.extract_kv_dtype` is its preset for sglang PR #31147, with that PR's fixes.
"""
