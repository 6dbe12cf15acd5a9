"""The methods of a class that run only while its `__init__` runs, before a given statement of it
(sglang's Scheduler: `init_model_config()`, called once from `__init__`): what they assign is
assigned during construction, not once the object is in use. The extraction reads a component's
fields with it (`codemods.extract_component.analysis`), the proof what the owner rebinds between
calls (`equivalence.component.shape`).
"""

from __future__ import annotations

import ast
import bisect
import re
from pathlib import Path

from pysource.checkout import Checkout


def calls_on_self(node: ast.AST, name: str, me: str) -> bool:
    """`node` calls `me.name(...)`."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
               and isinstance(n.func.value, ast.Name) and n.func.value.id == me for n in ast.walk(node))


def _self_calls(node: ast.AST, me: str) -> set[str]:
    """The names `node` calls as `me.name(...)`."""
    return {n.func.attr for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == me}


def run_only_in_init(cls: ast.ClassDef, early: list[ast.stmt], me: str, names: set[str], text: str,
                     checkout: Checkout, path: Path) -> set[str]:
    """Those of `cls`'s methods `names` that run only while `__init__` runs its statements `early`
    (`me`: its self): each is defined once, undecorated, called by those statements or by another
    of them, and spelled nowhere else in its file `path` (whose text is `text`: another method,
    the class body, another class, a comment) nor in another file of `checkout`."""
    methods = [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    defs = {s.name: s for s in methods}
    out = {n for n in names if [s.name for s in methods].count(n) == 1 and not defs[n].decorator_list
           and not n.startswith("__")}
    if not out or not early:
        return set()
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    # read once: the methods each one calls on its self, and the lines spelling each name
    early_calls = {c for s in early for c in _self_calls(s, me)}
    calls = {n: _self_calls(defs[n], defs[n].args.args[0].arg) if defs[n].args.args else set() for n in out}
    lines: dict[str, list[int]] = {n: [] for n in out}
    for m in re.finditer(rf"\b(?:{'|'.join(map(re.escape, sorted(out)))})\b", text):
        lines[m.group(0)].append(bisect.bisect_right(starts, m.start()))
    changed = True
    while changed:
        changed = False
        for name in sorted(out):
            spans = [(early[0].lineno, early[-1].end_lineno),  # comments between those statements too
                     *((defs[n].lineno, defs[n].end_lineno) for n in out)]
            called = name in early_calls or any(name in calls[n] for n in out if n != name)
            elsewhere = any(not any(a <= line <= b for a, b in spans) for line in lines[name])
            if not called or elsewhere:
                out.discard(name)
                changed = True
    here = Path(path).resolve()
    return {n for n in out  # the other files last: a search of the checkout each
            if not any(Path(p).resolve() != here for p in checkout.select(lambda data: True, mentioning=n.encode()))}
