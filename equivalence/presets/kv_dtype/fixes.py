"""Versions for `--steps PATH --fix NAME`: after step 4, the codemod's fixes one at a time,
each paired with the finding it addresses (its delta must be that finding, see intended.py)."""

from __future__ import annotations

from pathlib import Path

from equivalence.versions.codemod_steps import CodemodMissing, apply_in_copy


def known_fixes() -> dict[str, str]:
    """fix name -> finding id, in the order the codemod applies them."""
    try:
        from codemods.extract_kv_dtype import FIXES
    except ImportError as e:
        raise CodemodMissing(f"--fix needs codemods.extract_kv_dtype.FIXES, which is not importable here ({e})") from None
    return {name: fix.finding for name, fix in FIXES.items()}


def fix_trees(step4: Path, workdir: Path, names: list[str], original: Path) -> list[tuple[str, Path, str]]:
    """[(label, tree, finding id)]: each fix applied to the tree of the previous one."""
    from codemods.extract_kv_dtype import refactor

    fixes = known_fixes()
    out, previous = [], step4
    for name in [n for n in fixes if n in names]:
        previous = apply_in_copy(previous, workdir / f"fix-{name}", original,
                                 lambda tree: refactor(tree, None, fixes=[name]))
        out.append((f"+ fix {name}", previous, fixes[name]))
    return out
