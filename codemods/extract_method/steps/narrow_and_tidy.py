"""Step 4: the parameters `--narrow` names are narrowed (`narrow_param`), then the class's module
drops what only the moved code used (`tidy`); a step with nothing to do says so."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Optional

from codemods.checkout.references import referenced_elsewhere as _referenced_elsewhere
from codemods.core.steps import Step
from codemods.core.runner import Outcome, Tree
from codemods.extract_method.models import Handed, MethodRun
from codemods.extract_method.steps_done import Reading
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.steps.narrow_param import (
    annotate_narrows,
    drop_unused_imports,
    expand_narrows,
    narrow_caller,
    narrow_function,
    positional_names,
)
from codemods.extract_method.steps.narrow_calls import narrow_class_calls, narrow_outside_calls
from codemods.syntax.tidy import tidy_source
from codemods.syntax.nodes import class_members, parse, top_class


class NarrowAndTidy(Step[MethodRun, Handed]):
    number = 4

    def done(self, r: Reading) -> bool:
        """Nothing is left to narrow or to tidy (steps 1-3 are done)."""
        if r.has_method:  # a wrapper
            return not (r.alias_ours and r.target_text and r.step_4_pending)
        if r.moved and r.without_wrapper:
            return not r.step_4_pending
        return True

    def run(self, run: MethodRun, tree: Tree, carry: Handed) -> Outcome[Handed]:
        """The subject says what the step did, or that it had nothing to do."""
        recipe, style, checkout = run.recipe, run.ctx.style, run.ctx.checkout
        source, target, current = run.source, run.target, tree.current
        module = tree.module
        files: dict[Path, str] = {}
        originals: dict[Path, Optional[str]] = {}
        messages: list[str] = []
        skip = {source, target}
        narrowed = []
        if recipe.narrows:
            positional = positional_names(current[target], recipe.function)  # what calls may pass by position
            recipe = replace(recipe, narrows=expand_narrows(current[target], recipe))
            recipe = replace(recipe, narrows=annotate_narrows(recipe.narrows, current[target], recipe, checkout,
                                                              run.ctx.root))
            files[target] = drop_unused_imports(
                current[target], narrow_function(current[target], target, recipe, style), recipe.function, style,
                lambda names: _referenced_elsewhere(checkout, recipe.target_module, recipe.source_module, names,
                                                    style, skip))
            if class_members(top_class(module, recipe.class_name, source)[1], recipe.method_name):
                module = narrow_caller(module, tree.text, source, recipe, style, positional)
            else:  # no wrapper: the callers call the function
                module, inside = narrow_class_calls(module, tree.text, source, recipe, style, positional)
                outside, elsewhere = narrow_outside_calls(checkout, current, recipe, style, skip, positional)
                files.update(outside)
                originals.update({p: run.originals[p] if p in run.originals else checkout.text(p) for p in outside})
                messages.append(f"step 4: {inside} call(s) in {recipe.class_name}"
                                + (f" and {elsewhere} in {len(outside)} other file(s)" if outside else "")
                                + f" pass {', '.join(n.new_param for n in recipe.narrows)}")
            for param in dict.fromkeys(n.param for n in recipe.narrows):
                new = [n.new_param for n in recipe.narrows if n.param == param]
                narrowed.append(f"Pass {', '.join(new)} instead of {param} to {recipe.function}")
            read = ", ".join(f"{n.param}.{n.attribute}" for n in recipe.narrows)
            it = "them" if len(recipe.narrows) > 1 else "it"
            if recipe.infer:  # a preset (#31147's) says what it narrows in its own words
                params = "/".join(dict.fromkeys(n.param for n in recipe.narrows))
                messages.append(f"step 4: note: each call now reads {read} before {recipe.function} runs (the "
                                f"method read {it} where it used {it}, maybe on some paths only): a {params} "
                                f"lacking {it}, or None, raises at the call")
        target_module = parse(target, files.get(target, current[target]))
        module, dropped = tidy_source(module, target_module, recipe.function, style,
                                      lambda names: _referenced_elsewhere(checkout, recipe.source_module,
                                                                          recipe.target_module, names, style, skip),
                                      recipe.tidy_globals, run.render)
        return Outcome(self.subject(recipe, source, narrowed, dropped), module, files, originals, messages=messages)

    @staticmethod
    def subject(recipe: Recipe, source: Path, narrowed: list[str], dropped: list[str]) -> str:
        if 4 in recipe.subjects:
            return recipe.subjects[4]
        if dropped:
            narrowed.append(f"{'drop' if narrowed else 'Drop'} {', '.join(dropped)} from {source.name}: only "
                            f"{recipe.function} used {'it' if len(dropped) == 1 else 'them'}")
        if narrowed:
            return "; ".join(narrowed)
        return (f"Nothing to narrow or tidy after extracting {recipe.qualified} ({source.name} holds "
                f"nothing only {recipe.function} used)")  # the status line and the commit say "step 4" once
