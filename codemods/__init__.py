"""LibCST codemods that reproduce mechanical sglang refactorings.

`codemods.refactoring` holds the generic steps (make a method static, move it to a
module, leave a wrapper, narrow a parameter); `codemods.extract_kv_dtype` is the
recipe for sglang PR #31147 plus its command line.
"""
