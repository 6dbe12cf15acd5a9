"""Chain the steps over a tree, in memory: find the files, detect progress, run a range of steps.

Nothing is written here; the result is a `Plan` (new full texts per file, per step and
in total) that `writer.write_plan` puts on disk all-or-nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from codemods.refactoring.cstutil import def_line, parse
from codemods.refactoring.errors import AlreadyApplied, BadInput, NoSuchMethod
from codemods.refactoring.formatting import Style
from codemods.refactoring.checkout import Checkout
from codemods.refactoring.imports import index_bindings
from codemods.refactoring.leave_wrapper import leave_wrapper
from codemods.refactoring.make_static import make_static
from codemods.refactoring.move_function import move_function
from codemods.refactoring.narrow_param import narrow_caller, narrow_function, tidy_source_imports
from codemods.refactoring.recipe import Recipe
from codemods.refactoring.references import Move, update_references
from codemods.refactoring.state import NOT_FOUND, detect
from codemods.refactoring.tree import Found, NotASourceTree, find_root


@dataclass
class StepResult:
    number: int
    subject: str
    changes: dict[Path, str]  # files this step changed -> their text after it


@dataclass
class Plan:
    root: Path
    shape: str
    changes: dict[Path, str] = field(default_factory=dict)  # absolute path -> new full text
    originals: dict[Path, Optional[str]] = field(default_factory=dict)  # None: file is new
    messages: list[str] = field(default_factory=list)
    steps: list[StepResult] = field(default_factory=list)


def find(path: Path, recipe: Recipe) -> Found:
    """The folder holding the package and which layout PATH has (`tree.find_root`)."""
    if not path.exists():
        raise BadInput("no such file or directory", path)
    if not path.is_dir():
        raise BadInput("not a directory", path)
    try:
        return find_root(path, recipe.source_file)
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


def run(path: Path, recipe: Recipe, steps: range, style: Style,
        classify: Callable[[str], str] = lambda code: "unknown") -> Plan:
    found = find(path, recipe)
    root = found.root
    source, target = root / recipe.source_file, root / recipe.target_file
    text = read(source)
    target_text = read(target) if target.exists() else None
    module = parse(source, text)
    status = detect(module, text, source, target_text, recipe)
    name = f"{recipe.class_name}.{recipe.method_name}"
    if status.done == NOT_FOUND:
        raise NoSuchMethod(f"{name} not found: this release predates it, nothing to do", source)
    if status.done == 4:
        raise AlreadyApplied(f"already applied: {recipe.target_file} holds {recipe.method_name}", source)
    if steps.start != status.done + 1:
        done = f"steps 1-{status.done} are" if status.done > 1 else "step 1 is" if status.done else "no step is"
        raise BadInput(f"{done} already applied here; run --steps {status.done + 1}-{max(steps.stop - 1, status.done + 1)}"
                       f" instead of --steps {steps.start}-{steps.stop - 1}", source, status.line)
    if status.done < 2 and target_text is not None and 2 not in steps:
        raise BadInput("target module already present", target)

    shape = classify(text) if status.done == 0 else f"partially extracted (steps 1-{status.done} applied)"
    plan = Plan(root=root, shape=shape, originals={source: text, target: target_text})
    if status.done == 2:
        plan.messages.append(f"found {source} ({recipe.class_name} calls {recipe.target_alias}."
                             f"{recipe.method_name} at line {status.line}) in {found.how}")
    else:
        plan.messages.append(f"found {source} ({name} at line {status.line}) in {found.how}")
    plan.messages.append(f"recognised shape: {shape}")
    current = {source: text, target: target_text}
    hole = None  # where step 2 took the method from, for step 3 in the same run
    for number in steps:
        changed: dict[Path, str] = {}
        if number == 1:
            module = make_static(module, text, source, recipe, style)
        elif number == 2:
            module, new_target, hole = move_function(module, text, source, recipe, style)
            if target_text is not None and target_text != new_target:
                raise BadInput("target module already present with other content", target)
            changed[target] = new_target
            for p, (old, new) in _update_checkout(path, root, recipe, module, new_target, style).items():
                plan.originals[p] = old
                changed[p] = new
        elif number == 3:
            module, where = leave_wrapper(module, text, source, recipe, style, hole)
        elif number == 4:
            changed[target], target_imported = narrow_function(current[target], target, recipe, style)
            module = narrow_caller(module, text, source, recipe, style)
            module = tidy_source_imports(module, target_imported, style)
        text = module.code
        changed[source] = text
        current.update(changed)
        plan.steps.append(StepResult(number, recipe.subjects.get(number, f"step {number}"), changed))
        plan.messages.append(f"step {number}: {recipe.subjects.get(number, '')}")
        if number == 3:
            at = def_line(text, recipe.class_name, recipe.method_name)
            plan.messages.append(f"step 3: wrapper {name} placed {where} (line {at})")
    plan.changes = {p: t for p, t in current.items() if t is not None and t != plan.originals.get(p)}
    return plan


def _update_checkout(path: Path, root: Path, recipe: Recipe, module, new_target: str, style: Style
                     ) -> dict[Path, tuple[str, str]]:
    """Step 2's changes to the rest of the checkout (`references.update_references`); the moved
    function reads what the new module binds, which is all it binds besides the moved names."""
    bindings = index_bindings(parse(root / recipe.target_file, new_target))
    reads = set(bindings) - set(recipe.moved_globals) - {recipe.method_name}
    copies = {n for n in reads if {b.kind for b in bindings[n]} != {"import"}}
    move = Move(recipe.source_module, {n: recipe.target_module for n in recipe.moved_globals},
                frozenset(recipe.moved_globals) & set(index_bindings(module)))
    return update_references(Checkout.find(path, root), move, style, {root / recipe.source_file,
                             root / recipe.target_file}, function=recipe.method_name,
                             new=recipe.target_module, reads=reads, copies=copies)
