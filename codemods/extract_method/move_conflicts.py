"""What the move must not break elsewhere: uses of the method outside its class, new import cycles.

Every use of CLASS.METHOD the first steps would break (`method_usages`: subclasses overriding
it, `x.METHOD` anywhere but the class's own calls of it, patches of it) is refused, every place
at once, together with whatever a step refuses besides; but for a run that writes step 3's
wrapper, a use through the instance finds the wrapper: the steps are then written together, and
refused with --commit, whose commits before step 3 would break it (`Plan.broken_between_steps`). Step 2 adds module-level imports: the
class's module imports the target module, and the target gets those the moved code needs (with --no-wrapper, each
module whose calls step 3 rewrites imports it too); one that closes an import cycle (`import_graph`) is refused, naming the cycle. A function-level
import stays where it was, so it adds no edge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from pysource.checkout import Checkout
from codemods.syntax.nodes import binding_line
from codemods.core.errors import Conflicts, Location, Refusal
from codemods.checkout.import_graph import ImportGraph, module_imports
from codemods.checkout.method_usages import method_usages
from codemods.extract_method.recipe import Recipe


def outside_uses(checkout: Checkout, recipe: Recipe, wrapper_written: bool, left: Optional[list[Location]] = None
                 ) -> tuple[list[Location], list[Location]]:
    """(the uses of the method that steps 1-2 would break and the run must refuse, those it may
    leave to step 3's wrapper): with `wrapper_written` (the run writes step 3, with a wrapper) a
    use through the instance finds the wrapper, and only steps 1-2 alone would break it."""
    refused, mended = [], []
    for u in method_usages(checkout, recipe.source_module, recipe.class_name, recipe.method_name,
                           reads_are_calls=recipe.is_property):
        if u.override and recipe.is_property:
            _property_override(u, recipe, wrapper_written, refused, mended, left if left is not None else [])
            continue
        (mended if wrapper_written and u.through_wrapper else refused).append(
            Location(u.path, u.line, f"{u.what}: steps 1-2 would break it"))
    return refused, mended


def _property_override(u: Location, recipe: Recipe, wrapper_written: bool, refused: list[Location],
                       mended: list[Location], left: list[Location]) -> None:
    """A subclass overriding a property: every read of the property finds the override, the
    wrapper's too (listed, kept); without a wrapper its callers no longer read the property, so
    the override is refused (--leave-overrides: listed, left unread)."""
    if not recipe.no_wrapper:
        if wrapper_written:
            mended.append(Location(u.path, u.line, f"{u.what}: reads go on finding it through the property wrapper "
                                                   f"of step 3"))
        else:
            refused.append(Location(u.path, u.line, f"{u.what}: steps 1-2 would break it"))
    elif not recipe.leave_overrides:
        refused.append(Location(u.path, u.line, f"{u.what}: with --no-wrapper the reads become calls of "
                                                f"{recipe.function} and no longer find the override (a behaviour "
                                                f"change for {u.what.partition(' ')[0]}); keep the wrapper, or "
                                                f"--leave-overrides to go on and leave it unread"))
    else:
        left.append(Location(u.path, u.line, f"{u.what}: left as it is, and no longer read (--leave-overrides)"))


def refuse_uses(uses: list[Location], recipe: Recipe, refusal: Optional[Refusal] = None) -> Conflicts:
    """The refusal listing `uses` (and what a step refused besides, unless at one of them)."""
    places = list(uses)
    others = refusal.locations if isinstance(refusal, Conflicts) else [] if refusal is None else [
        Location(refusal.path or uses[0].path, refusal.line or 0, refusal.why)]
    listed = {(u.path, u.line) for u in uses}
    places += [o for o in others if (o.path, o.line) not in listed]
    name = recipe.qualified
    return Conflicts(places, note=(
        f"Each use that steps 1-2 would break is one of {name} or of a same-named method of another class that "
        f"the tool cannot tell apart from it: step 1 makes {name} a keyword-only static method and step 2 takes "
        f"it out of the class until step 3 puts a wrapper back. Update those places first (or rename the other "
        f"class's method), then run again. (A use through an instance outside the class finds the wrapper of a "
        f"run that writes step 3 with one, and --no-wrapper rewrites it where the code says the instance is a "
        f"{recipe.class_name}: not with --steps ending before 3.)"))


def refuse_new_cycle(checkout: Checkout, recipe: Recipe, source: Path, text: str, method_line: Optional[int],
                     old_target: Optional[str], new_target: str, callers: Sequence[tuple[str, str]] = ()) -> None:
    """Refuse when the imports the run adds close an import cycle: the class's module importing
    the target, the target importing what the moved code needs, or (`callers`) a module whose
    calls step 3 rewrites importing the target."""
    target_package = recipe.target_package
    added = sorted(module_imports(new_target, recipe.target_module, target_package, checkout)
                   - module_imports(old_target, recipe.target_module, target_package, checkout))
    edges = [(recipe.source_module, recipe.target_module), *added, *callers]
    cycle = ImportGraph(checkout).cycle_closed_by(edges)
    if cycle is None:
        return
    first, second = cycle[0], cycle[1]
    if first == recipe.source_module:
        why = f"{recipe.source_module} would import {recipe.target_module} at module level"
        line = method_line
    elif (first, second) in callers:
        why = f"{first} would import {recipe.target_module} at module level (to call {recipe.function})"
        line = method_line
    else:
        why = f"{recipe.target_module} would import {second} at module level (the moved code needs it)"
        line = _import_line(text, second) or method_line
    raise Refusal(f"{why}, which closes the import cycle {' -> '.join(cycle)}: choose another target module, "
                  f"or import lazily there first", source, line)


def _import_line(text: str, module: str) -> Optional[int]:
    """The line of the class's module that imports from `module` (where the moved code got it)."""
    tail = module.rpartition(".")[2]
    for name in (tail, module):
        line = binding_line(text, name)
        if line:
            return line
    for i, ln in enumerate(text.splitlines(), 1):
        if ln.startswith(("from ", "import ")) and module in ln:
            return i
    return None
