"""Chain the steps over a tree, in memory: find the files, detect progress, run a range of steps.

Nothing is written here; the result is a `Plan` (new full texts per file, per step and
in total) that `writer.write_files` puts on disk all-or-nothing. The source module is parsed
once; each step hands the next the tree it made and what it found (the method's shape, where
it sat, which class members hold its call sites).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

import libcst as cst

from codemods.syntax import nodes
from codemods.extract_method.analysis.annotations import Annotator, annotation_only, is_lazy
from pysource.classes import python_ast
from codemods.syntax.nodes import def_line, parse
from codemods.core.errors import AlreadyApplied, BadInput, NoSuchMethod, Refusal
from codemods.core.formatting import Style
from pysource.checkout import Checkout
from codemods.syntax.import_statements import index_bindings
from codemods.extract_method.steps.leave_wrapper import leave_wrapper
from codemods.extract_method.steps.make_static import Static, make_static
from codemods.extract_method.steps.move_function import move_function
from codemods.extract_method.steps.narrow_param import drop_unused_imports, expand_narrows, narrow_caller, narrow_function
from codemods.extract_method.move_conflicts import outside_uses, refuse_new_cycle, refuse_uses
from codemods.core.plan import Plan, StepResult
from codemods.extract_method.recipe import Recipe
from codemods.checkout.references import Move, plan_references, update_references
from codemods.core.render import Renderer
from codemods.extract_method.steps_done import NOT_FOUND, Status, detect
from codemods.extract_method.steps.tidy import candidates, tidy_source
from pysource.layout import Found, NotASourceTree, find_root


def forget_parsed() -> None:
    """Empty the parse caches (LibCST and ast trees, bindings), as a fresh process has them."""
    nodes.parse_text.cache_clear()
    python_ast.cache_clear()
    index_bindings.cache_clear()


def find(path: Path, recipe: Recipe) -> Found:
    """The folder holding the package and which layout PATH has (`pysource.layout.find_root`)."""
    return located(path, recipe.source_file)


def located(path: Path, rel: str) -> Found:
    """`pysource.layout.find_root(path, rel)`, every way PATH can be wrong a `BadInput`."""
    if not path.exists():
        raise BadInput("no such file or directory", path)
    if not path.is_dir():
        raise BadInput("not a directory", path)
    try:
        return find_root(path, rel)
    except NotASourceTree as exc:
        raise BadInput(str(exc), path) from None


def locate(path: Path, recipe: Recipe) -> Path:
    return find(path, recipe).root


def read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except PermissionError:
        raise BadInput("cannot read the file (permission denied)", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read the file: {exc}", path) from None


def new_packages(root: Path, target: Path) -> list[Path]:
    """`__init__.py` files for the folders between `root` and `target` that do not exist yet."""
    missing, folder = [], target.parent
    while folder != root and not folder.exists():
        missing.append(folder / "__init__.py")
        folder = folder.parent
    return missing[::-1]


def steps_done(path: Path, recipe: Recipe) -> int:
    """How many of the four steps the tree at `path` has (NOT_FOUND: no such method)."""
    root = locate(path, recipe)
    source, target = root / recipe.source_file, root / recipe.target_file
    text = read(source)
    return detect(parse(source, text), text, source, read(target) if target.exists() else None, recipe).done


def missing_steps(path: Path, recipe: Recipe) -> range:
    """The steps the tree lacks; all four when it has none or all (the run then says why)."""
    done = steps_done(path, recipe)
    return range(done + 1, 5) if 0 <= done < 4 else range(1, 5)


def run(path: Path, recipe: Recipe, steps: range, style: Style,
        classify: Callable[[str, object], str] = lambda code, static: "unknown",
        checkout: Optional[Checkout] = None) -> Plan:
    found = find(path, recipe)
    root = found.root
    checkout = checkout or Checkout.find(path, root, recipe.source_file.split("/")[0])
    source, target = root / recipe.source_file, root / recipe.target_file
    text = read(source)
    target_text = read(target) if target.exists() else None
    module = parse(source, text)
    render = Renderer(module, text).render
    status = detect(module, text, source, target_text, recipe)
    name = recipe.qualified
    if status.done == NOT_FOUND:
        raise NoSuchMethod(f"{name} not found: this release predates it, nothing to do" if not recipe.infer else
                           f"{name} not found, nor {recipe.callee} in {recipe.target_file}: nothing to do", source)
    if status.done == 4 and steps == range(4, 5) and recipe.infer and not recipe.narrows and status.line:
        status = Status(3, status.line)  # after step 3, with nothing for step 4 to do: it runs and says so
    if status.done == 4:
        left = "" if not recipe.infer or recipe.narrows or status.line is None else (
            f"; step 4 has nothing left to do (nothing to narrow, nothing only {recipe.function} used left in "
            f"{source.name})")
        raise AlreadyApplied(f"already applied: {recipe.target_file} holds {recipe.function}{left}", source)
    if steps.start != status.done + 1:
        done = f"steps 1-{status.done} are" if status.done > 1 else "step 1 is" if status.done else "no step is"
        raise BadInput(f"{done} already applied here; run --steps {status.done + 1}-{max(steps.stop - 1, status.done + 1)}"
                       f" instead of --steps {steps.start}-{steps.stop - 1}", source, status.line)
    if recipe.new_target and status.done < 2 and target_text is not None and 2 not in steps:
        raise BadInput("target module already present", target)

    plan = Plan(root=root, shape="", originals={source: text, target: target_text})
    if status.done == 2:
        plan.messages.append(f"found {source} ({recipe.class_name} calls {recipe.callee} at line {status.line}) "
                             f"in {found.how}")
    else:
        plan.messages.append(f"found {source} ({name} at line {status.line}) in {found.how}")
    uses = outside_uses(checkout, recipe) if status.done < 2 else []  # steps 1-2 would break them
    try:
        static = _run_steps(plan, module, recipe, steps, style, checkout, status, render)
    except Refusal as exc:
        if uses:
            raise refuse_uses(uses, recipe, exc) from None
        raise
    if uses:
        raise refuse_uses(uses, recipe)
    plan.shape = classify(plan.originals[source], static) if status.done == 0 else \
        f"partially extracted (steps 1-{status.done} applied)"
    plan.messages.insert(1, f"recognised shape: {plan.shape}")
    return plan


def _run_steps(plan: Plan, module: cst.Module, recipe: Recipe, steps: range, style: Style, checkout: Checkout,
               status: Status, render: Callable[[cst.Module], str]) -> Optional[Static]:
    """Run `steps` from `module` (the source module as `plan.originals` holds it), in memory,
    recording each step and the changes in `plan`; what step 1 found, if it ran."""
    root = plan.root
    source, target = root / recipe.source_file, root / recipe.target_file
    text, target_text = plan.originals[source], plan.originals[target]
    current = {source: text, target: target_text}
    static = hole = members = None
    for number in steps:
        changed: dict[Path, str] = {}
        subject = recipe.subject(number) if number < 4 else ""
        if number == 1:
            annotator = Annotator(checkout, recipe, module, text, root, parse(target, target_text)
                                  if target_text is not None else None) if recipe.infer else None
            module, static = make_static(module, text, source, recipe, style, root,
                                         annotator.annotate if annotator else None)
            note = annotator.left_out_note() if annotator else None
            if note:
                plan.messages.append(f"step 1: {note}")
            members = static.members
        elif number == 2:
            module, new_target, hole = move_function(module, text, source, recipe, style, target, current[target],
                                                     members, plan.originals[source])
            if recipe.new_target and target_text is not None and target_text != new_target:
                raise BadInput("target module already present with other content", target)
            refuse_new_cycle(checkout, recipe, source, plan.originals[source], status.line, current[target],
                             new_target)
            changed[target] = new_target
            for init in new_packages(root, target) if recipe.package_inits else ():
                plan.originals[init] = None
                changed[init] = ""
            for p, (old, new) in _update_checkout(checkout, recipe, module, target, new_target, style,
                                                  {source, target}).items():
                plan.originals[p] = old
                changed[p] = new
        elif number == 3:
            module, where = leave_wrapper(module, text, source, recipe, style, current[target], hole, static,
                                          members if static is not None else None)
        elif number == 4:
            module, subject = _narrow_and_tidy(module, text, source, target, current, changed, recipe, style, root,
                                               render, checkout)
        text = render(module)
        changed[source] = text
        current.update(changed)
        plan.steps.append(StepResult(number, subject, changed))
        plan.messages.append(f"step {number}: {subject}")
        if number == 3:
            at = def_line(text, recipe.class_name, recipe.method_name)
            plan.messages.append(f"step 3: wrapper {recipe.qualified} placed {where} (line {at})")
    plan.changes = {p: t for p, t in current.items() if t is not None and t != plan.originals.get(p)}
    return static


def _narrow_and_tidy(module: cst.Module, text: str, source: Path, target: Path, current: dict, changed: dict,
                     recipe: Recipe, style: Style, root: Path, render, checkout: Checkout
                     ) -> tuple[cst.Module, str]:
    """Step 4: (the source module, the step's subject, saying what it did or that it had nothing to do)."""
    narrowed = []
    if recipe.narrows:
        recipe = replace(recipe, narrows=expand_narrows(current[target], recipe))
        changed[target] = drop_unused_imports(
            current[target], narrow_function(current[target], target, recipe, style), recipe.function, style,
            lambda names: _referenced_elsewhere(checkout, recipe.target_module, recipe.source_module, names, style,
                                                {source, target}))
        module = narrow_caller(module, text, source, recipe, style)
        for param in dict.fromkeys(n.param for n in recipe.narrows):
            new = [n.new_param for n in recipe.narrows if n.param == param]
            narrowed.append(f"Pass {', '.join(new)} instead of {param} to {recipe.function}")
    target_module = parse(target, changed.get(target, current[target]))
    module, dropped = tidy_source(module, target_module, recipe.function, style,
                                  lambda names: _referenced_elsewhere(checkout, recipe.source_module,
                                                                      recipe.target_module, names, style,
                                                                      {source, target}),
                                  recipe.tidy_globals, render)
    if 4 in recipe.subjects:
        return module, recipe.subjects[4]
    if dropped:
        narrowed.append(f"{'drop' if narrowed else 'Drop'} {', '.join(dropped)} from {source.name}: only "
                        f"{recipe.function} used {'it' if len(dropped) == 1 else 'them'}")
    if narrowed:
        return module, "; ".join(narrowed)
    return module, (f"Extract {recipe.qualified}, step 4: nothing to narrow or tidy ({source.name} holds "
                    f"nothing only {recipe.function} used)")


def _update_checkout(checkout: Checkout, recipe: Recipe, module: cst.Module, target_path: Path, new_target: str,
                     style: Style, skip: set[Path]) -> dict[Path, tuple[str, str]]:
    """Step 2's changes to the rest of the checkout (`references.update_references`): references
    to the moved globals, and patches of what the moved function reads through the old module
    (in a module with `from __future__ import annotations`, not what only its annotations name)."""
    target = parse(target_path, new_target)
    reads = candidates(target, recipe.function) - set(recipe.moved_globals)
    if is_lazy(target):  # what only its annotations name, it never reads
        reads -= annotation_only([s for s in target.body if isinstance(s, cst.FunctionDef)
                                  and s.name.value == recipe.function])
    bindings = index_bindings(target)
    copies = {n for n in reads if {b.kind for b in bindings.get(n, [])} - {"import"}}
    move = Move(recipe.source_module, {n: recipe.target_module for n in recipe.moved_globals},
                frozenset(recipe.moved_globals) & set(index_bindings(module)))
    return update_references(checkout, move, style, skip, function=recipe.function, new=recipe.target_module,
                             reads=reads, copies=copies)


def _referenced_elsewhere(checkout: Checkout, module: str, other: str, names: set[str], style: Style,
                          skip: set[Path]) -> set[str]:
    """Which of `names` some other file of the checkout reads through `module` (`from module
    import NAME`, `module.NAME`, `"module.NAME"`: a reference that moving NAME to `other` would
    rewrite): the module keeps binding them. A name no file spells next to the module's name
    (`may_reference`) is not looked for."""
    tail = module.rpartition(".")[2]
    return {n for n in names if any(checkout.select(lambda data: may_reference(data, tail, n)))
            and any(plan_references(checkout, Move(module, {n: other}), style, skip))}


def may_reference(data: bytes, tail: str, name: str) -> bool:
    """A cheap test, true whenever a file may read `name` through module `...tail`: importing it
    from there (`from ...tail import (..., name`), as an attribute or in a dotted string
    (`tail.name`), or binding the module under another name (`... tail as x`)."""
    t, n = re.escape(tail.encode()), re.escape(name.encode())
    return n in data and t in data and bool(
        re.search(rb"from\s+[\w.]*\b" + t + rb"\s+import\s*\(?[\w\s,]*\b" + n + rb"\b", data)
        or re.search(rb"\b" + t + rb"\s*\.\s*" + n + rb"\b", data) or re.search(rb"\b" + t + rb"\s+as\s+\w", data))
