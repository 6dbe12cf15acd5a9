"""The `python -m codemods.extract_kv_dtype` command: sglang PR #31147, a preset of extract_method.

The preset itself (its recipe, its fixes, its Python API) is `codemods.extract_method.presets.kv_dtype`;
this package is the command, and keeps that API importable under the command's name.
"""

from codemods.extract_method.presets.kv_dtype import *  # noqa: F401,F403
from codemods.extract_method.presets.kv_dtype import __all__  # noqa: F401
