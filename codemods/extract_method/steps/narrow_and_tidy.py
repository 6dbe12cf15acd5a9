"""Step 4: the parameters `--narrow` names are narrowed (`narrow_param`), then the class's module
drops what only the moved code used (`tidy`); a step with nothing to do says so."""

from __future__ import annotations

from dataclasses import replace

from codemods.checkout.references import referenced_elsewhere as _referenced_elsewhere
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
        return (f"Nothing to narrow or tidy after extracting {recipe.qualified} ({source.name} holds "
                f"nothing only {recipe.function} used)")  # the status line and the commit say "step 4" once
