"""The kv codemod's fixes for `--steps PATH --fix NAME`: applied after step 4 one at a time
(versions/codemod_steps.py), each paired with the finding it addresses (its delta must be that
finding, see intended.py)."""

from __future__ import annotations

from equivalence.versions.codemod_steps import CodemodMissing


def known_fixes() -> dict[str, str]:
    """fix name -> finding id, in the order the codemod applies them."""
    try:
        from codemods.extract_kv_dtype import FIXES
    except ImportError as e:
        raise CodemodMissing(f"--fix needs codemods.extract_kv_dtype.FIXES, which is not importable here ({e})") from None
    return {name: fix.finding for name, fix in FIXES.items()}
