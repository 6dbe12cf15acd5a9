"""Opt-in fixes of the review's findings, applied after step 4 (each its own commit).

Each fix names the equivalence finding it addresses, so that the harness can check that
its behavioural delta is exactly that finding's configurations.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from codemods.extract_method.presets.kv_dtype.fix_fp4_fallback import Fallback, fix_fallback
from codemods.extract_method.presets.kv_dtype.fix_kv_str_lookup import TableLookup, fix_lookup
from codemods.extract_method.presets.kv_dtype.recipe import RECIPE
from codemods.core.errors import AlreadyApplied, BadInput
from codemods.core.formatting import Style
from codemods.core.plan import Plan, StepResult
from codemods.core.context import Context

FUNCTION = RECIPE.method_name

FP4 = Fallback(
    function=FUNCTION, param=RECIPE.narrows[0].new_param, value="fp4_e2m1", fallback="auto",
    comment="Without float4 support, fp4_e2m1 really falls back to the 'auto' resolution below.")

HELPER = "kv_cache_dtype_to_str"
LOOKUP = TableLookup(function=FUNCTION, table="TORCH_DTYPE_TO_KV_CACHE_STR", helper=HELPER, helper_code=f'''
def {HELPER}(dtype: torch.dtype) -> str:
    """The --kv-cache-dtype string naming `dtype`; ValueError for a dtype it has none for."""
    if dtype not in TORCH_DTYPE_TO_KV_CACHE_STR:
        accepted = ", ".join(str(d) for d in TORCH_DTYPE_TO_KV_CACHE_STR)
        raise ValueError(
            f"KV cache dtype {{dtype}} has no --kv-cache-dtype string; accepted dtypes: {{accepted}}"
        )
    return TORCH_DTYPE_TO_KV_CACHE_STR[dtype]
''')


@dataclass(frozen=True)
class Fix:
    name: str  # the --fix value
    finding: str  # the equivalence finding id it addresses
    subject: str  # its commit subject
    apply: Callable[[str, Path, Style], str]  # target module text -> fixed text


# In the order they are applied, whatever order they are asked in: the lookup first, since
# the fp4 fallback routes more configurations into that lookup (each delta stays its finding).
FIXES = {f.name: f for f in (
    Fix("kv-str-lookup", "kv-str-keyerror",
        "Raise a clear ValueError for a KV cache dtype missing from TORCH_DTYPE_TO_KV_CACHE_STR",
        lambda code, path, style: fix_lookup(code, path, LOOKUP, style)),
    Fix("fp4-fallback", "fp4-fallback-not-auto",
        "Really fall back to 'auto' for fp4_e2m1 when torch lacks float4_e2m1fn_x2",
        lambda code, path, style: fix_fallback(code, path, FP4, style)),
)}


@dataclass
class FixResult(StepResult):
    fix: str = ""  # the fix's name; `number` is 4 (fixes apply after step 4)


def empty_plan(ctx: Context) -> Plan:
    """A plan with no step, for a tree where all four steps are done."""
    source, target = ctx.root / RECIPE.source_file, ctx.root / RECIPE.target_file
    plan = Plan(root=ctx.root, shape="extracted (steps 1-4 applied)",
                originals={source: ctx.read(source), target: ctx.read(target)})
    plan.messages.append(f"found {target} ({FUNCTION}: steps 1-4 already applied)")
    return plan


def apply_fixes(plan: Plan, names: Sequence[str], style: Style) -> Plan:
    """Add `names` (in FIXES order) to `plan` as steps after step 4; `AlreadyApplied` if none changes anything."""
    unknown = [n for n in names if n not in FIXES]
    if unknown:
        raise BadInput(f"unknown fix {unknown[0]!r}; known: {', '.join(FIXES)}")
    target = plan.root / RECIPE.target_file
    text = plan.changes.get(target, plan.originals.get(target))
    if text is None:
        raise BadInput(f"fixes apply after step 4, and {RECIPE.target_file} does not exist", target)
    skipped = []
    for name in [n for n in FIXES if n in names]:
        fix = FIXES[name]
        try:
            new = fix.apply(text, target, style)
        except AlreadyApplied as exc:
            skipped.append(name)
            plan.messages.append(f"fix {name}: {exc.why}")
            continue
        text = new
        plan.steps.append(FixResult(4, fix.subject, {target: text}, fix=name))
        plan.messages.append(f"fix {name}: {fix.subject}")
    if text != plan.originals.get(target):
        plan.changes[target] = text
    if len(skipped) == len(dict.fromkeys(names)) and not plan.changes:
        raise AlreadyApplied(f"already applied: steps 1-4 and fix {', fix '.join(skipped)}", target)
    return plan


FIXES_HELP = """
fixes (--fix NAME, repeatable; applied after step 4 in this order, whatever the order
given, one commit each with --commit):
  kv-str-lookup  a dtype missing from TORCH_DTYPE_TO_KV_CACHE_STR raises ValueError naming
                 it and the accepted ones, through a helper kv_cache_dtype_to_str()
  fp4-fallback   fp4_e2m1 on a torch without float4_e2m1fn_x2 really resolves as 'auto'
                 (FP8 from the model's quant config, resolved string recorded); the
                 existing warning, which says so, is kept word for word
  Without --steps, --fix first runs the steps the tree lacks: on a tree already refactored
  (by this codemod or upstream) it applies only the fixes. With --steps A-B, B must be 4.
  A fix already present is reported ("already applied") and skipped; exit 5 when
  nothing at all is left to do. A function not in the expected shape is refused (exit 3,
  file:line: why); sglang's own later edits may need the fix done by hand.
"""
