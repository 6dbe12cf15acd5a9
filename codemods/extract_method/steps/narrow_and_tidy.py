"""Step 4: the parameters `--narrow` names are narrowed (`narrow_param`), then the class's module
drops what only the moved code used (`tidy`); a step with nothing to do says so."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from codemods.checkout.references import Move, plan_references
from codemods.core.formatting import Style
from codemods.core.steps import Step
from codemods.extract_method.run import ExtractionRun
from codemods.extract_method.steps.narrow_param import (
    drop_unused_imports,
    expand_narrows,
    narrow_caller,
    narrow_function,
)
from codemods.syntax.tidy import tidy_source
from codemods.syntax.nodes import parse
from pysource.checkout import Checkout


class NarrowAndTidy(Step["ExtractionRun"]):
    number = 4

    def apply(self, run: "ExtractionRun") -> str:
        """The subject says what the step did, or that it had nothing to do."""
        recipe, style, checkout = run.recipe, run.ctx.style, run.ctx.checkout
        source, target, current, changed = run.source, run.target, run.current, run.changed
        skip = {source, target}
        narrowed = []
        if recipe.narrows:
            recipe = replace(recipe, narrows=expand_narrows(current[target], recipe))
            changed[target] = drop_unused_imports(
                current[target], narrow_function(current[target], target, recipe, style), recipe.function, style,
                lambda names: _referenced_elsewhere(checkout, recipe.target_module, recipe.source_module, names,
                                                    style, skip))
            run.module = narrow_caller(run.module, run.text, source, recipe, style)
            for param in dict.fromkeys(n.param for n in recipe.narrows):
                new = [n.new_param for n in recipe.narrows if n.param == param]
                narrowed.append(f"Pass {', '.join(new)} instead of {param} to {recipe.function}")
        target_module = parse(target, changed.get(target, current[target]))
        run.module, dropped = tidy_source(run.module, target_module, recipe.function, style,
                                          lambda names: _referenced_elsewhere(checkout, recipe.source_module,
                                                                              recipe.target_module, names, style,
                                                                              skip),
                                          recipe.tidy_globals, run.render)
        if 4 in recipe.subjects:
            return recipe.subjects[4]
        if dropped:
            narrowed.append(f"{'drop' if narrowed else 'Drop'} {', '.join(dropped)} from {source.name}: only "
                            f"{recipe.function} used {'it' if len(dropped) == 1 else 'them'}")
        if narrowed:
            return "; ".join(narrowed)
        return (f"Extract {recipe.qualified}, step 4: nothing to narrow or tidy ({source.name} holds "
                f"nothing only {recipe.function} used)")


def _referenced_elsewhere(checkout: Checkout, module: str, other: str, names: set[str], style: Style,
                          skip: set[Path]) -> set[str]:
    """Which of `names` some other file of the checkout reads through `module` (`from module
    import NAME`, `module.NAME`, `"module.NAME"`: a reference that moving NAME to `other` would
    rewrite): the module keeps binding them. A name no file spells next to the module's name
    (`may_reference`) is not looked for."""
    tail = module.rpartition(".")[2]
    return {n for n in names if any(checkout.select(lambda data: may_reference(data, tail, n),
                                                    mentioning=tail.encode()))
            and any(plan_references(checkout, Move(module, {n: other}), style, skip))}


def may_reference(data: bytes, tail: str, name: str) -> bool:
    """A cheap test, true whenever a file may read `name` through module `...tail`: importing it
    from there (`from ...tail import (..., name`), as an attribute or in a dotted string
    (`tail.name`), or binding the module under another name (`... tail as x`)."""
    t, n = re.escape(tail.encode()), re.escape(name.encode())
    return n in data and t in data and bool(
        re.search(rb"from\s+[\w.]*\b" + t + rb"\s+import\s*\(?[\w\s,]*\b" + n + rb"\b", data)
        or re.search(rb"\b" + t + rb"\s*\.\s*" + n + rb"\b", data) or re.search(rb"\b" + t + rb"\s+as\s+\w", data))
