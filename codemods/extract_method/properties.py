"""A `@property` extracted: moved as a function of what it reads, its reads rewritten.

A property is a method called by reading it: `x.prop` runs `prop(x)`. Extracted, it becomes a
function of the attributes its body reads (`def prop(*, model_config)`, inferred as for any
method), and each read `self.prop` in the class becomes a call of it (step 1:
`self.prop(model_config=self.model_config)` on the static method in place, step 2:
`module.prop(model_config=self.model_config)`). Step 3 puts back a property of the same name
calling the function, and every read gets its text back; with `--no-wrapper` no property
goes back, and reads elsewhere on an instance the code types as the class
(`outside_callers`) become calls of the function on the receiver's attributes.

What only a plain read-only property can be: refused here, with the line of what is not.
- a setter or deleter (`@prop.setter`): a write `x.prop = v` has no function to become;
- another decorator (`functools.cached_property` writes the instance's dict): by hand;
- a body writing `self.X` (a cache): a read cannot write it back (`make_static`);
- `--write-back`, `--narrow`, several methods in one run: for methods.
A subclass overriding the property is listed: with the wrapper, callers still read the
property and so find the override (kept); without one, its callers would no longer read it:
refused unless `--leave-overrides` (then listed, left unread).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import libcst as cst
import libcst.matchers as m

from codemods.core.errors import BadInput, Refusal
from codemods.extract_method.recipe import Recipe
from codemods.syntax.nodes import def_line, top_class

PROPERTY = m.Decorator(decorator=m.Name("property"))


def is_property(func: cst.CSTNode) -> bool:
    """Whether `func` is a method under exactly one decorator, `@property`."""
    return isinstance(func, cst.FunctionDef) and len(func.decorators) == 1 and m.matches(func.decorators[0], PROPERTY)


def _accessor(func: cst.CSTNode, name: str) -> Optional[str]:
    """"setter" / "deleter" when `func` is `@name.setter` / `@name.deleter`."""
    if not isinstance(func, cst.FunctionDef):
        return None
    for d in func.decorators:
        if m.matches(d.decorator, m.Attribute(value=m.Name(name), attr=m.Name("setter") | m.Name("deleter"))):
            return d.decorator.attr.value
    return None


def property_member(module: cst.Module, text: str, path: Path, recipe: Recipe) -> bool:
    """Whether CLASS.METHOD is a plain `@property` the extraction can take; its setter or
    deleter, and what a property is extracted without, refused (file:line)."""
    try:
        _, cls = top_class(module, recipe.class_name, path)
    except Refusal:
        return False
    named = [s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == recipe.method_name]
    if not named or not is_property(named[0]):
        return False
    name = recipe.qualified
    for nth, s in enumerate(named[1:], 1):
        kind = _accessor(s, recipe.method_name)
        if kind is not None:
            raise Refusal(f"{name} is a property with a {kind} (@{recipe.method_name}.{kind}): a "
                          f"{'write' if kind == 'setter' else 'del'} of it has no function to become; "
                          f"extract it by hand", path, def_line(text, recipe.class_name, recipe.method_name, nth))
    if not recipe.infer:
        return True  # a preset's analysis refuses the decorator itself
    why = ("--write-back" if recipe.write_back else "--narrow" if recipe.narrows else
           "several methods in one run" if recipe.group_callers or recipe.group_functions else None)
    if why:
        raise BadInput(f"{name} is a property: {why} is for methods; extract the property in a run of its own, "
                       f"then narrow the function's callers by hand", path)
    return True
