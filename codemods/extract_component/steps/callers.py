"""Step 3: every caller, anywhere in the checkout, goes through the component, and the owner's
delegations go.

A caller is a use of a moved method whose receiver is an owner, as the code says
(`checkout.callers`): `self.model_runner.send_weights(...)` ->
`self.model_runner.weight_exporter.send_weights(...)`, the owner's own `self.m(...)` ->
`self.ATTR.m(...)`; the statement is formatted again (black) and nothing else of the file
changes. A patch target `"OWNER_MODULE.OWNER.m"` becomes `"TARGET_MODULE.COMPONENT.m"`. A
delegation stays where the owner hands the method around as a value (`self.m` not called: a
dispatch table binds it) and with `--keep-wrappers`; the others go. Whatever cannot be told to be
an owner's (a receiver the code does not type, another class's method of the same name being
possible), reached by name, reached through the class, or overridden, is refused, every place
at once.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Mapping, Optional

import libcst as cst

from codemods.checkout.callers import method_uses
from codemods.core.errors import Conflicts, Location
from codemods.core.runner import Outcome, Tree
from codemods.core.steps import Step
from codemods.extract_component.models import ComponentRun, Reading
from codemods.syntax.nodes import parse, top_class
from codemods.syntax.restyle import restyle
from codemods.syntax.source_edits import SourceEdits
from pysource.receivers import Program


def current_program(run: ComponentRun, current: Mapping[Path, Optional[str]]) -> Program:
    """A program over the checkout as the steps so far left it (the owner's and the component's
    modules as they are in memory: `current`)."""
    base = run.ctx.checkout
    overrides = {base.relative(path, base.package_root): text for path, text in current.items()
                 if text is not None}
    return run.program.over(base.with_texts(overrides))


class RewriteCallers(Step[ComponentRun, None]):
    number = 3

    def done(self, reading: Reading) -> bool:
        """The owner holds none of the methods (step 2 is done), but delegations something hands
        around as a value, or every one with `--keep-wrappers`, none of them called through self."""
        spec, owner = reading.spec, reading.owner
        left = [m for m in spec.methods if m in reading.defs]
        if not left:
            return True
        if len(left) < len(spec.methods) or spec.keep_wrappers:
            return spec.keep_wrappers or not _called(owner, left)
        return not _called(owner, left) and _values(owner, left) == set(left)

    def run(self, run: ComponentRun, tree: Tree, carry: None) -> Outcome[None]:
        design, style, spec = run.design, run.ctx.style, run.spec
        public = list(spec.methods)
        moving = set(design.methods)
        uses = run.uses  # read off the tree as the run began: the other files are still so
        callers = [u for u in uses.callers if u.path != run.source]
        patches = [p for p in uses.patches if p.owner == f"{run.source_module}.{design.owner}"]
        values = {u.method for u in uses.values}
        current = dict(tree.current)
        if run.done < 2:  # the owner's own calls: in its text as steps 1-2 left it
            current[run.source] = tree.text
            here = method_uses(current_program(run, current), f"{run.source_module}.{design.owner}", public,
                               skip_in_class=moving, skip_classes={f"{design.target_module}.{design.component}"},
                               only={run.source})
            callers += here.callers
            values = {u.method for u in here.values} | {u.method for u in uses.values if u.path != run.source}
        else:
            callers += [u for u in uses.callers if u.path == run.source and u.in_class not in moving]
        edits: dict[Path, SourceEdits] = {}
        touched: dict[Path, set[int]] = {}

        def text_of(path: Path) -> str:
            return current[path] if path in current else run.ctx.checkout.text(path)

        for use in callers:
            e = edits.setdefault(use.path, SourceEdits(text_of(use.path)))
            end = e.offset(use.node.value.end_lineno, use.node.value.end_col_offset)
            e.replace(end, end, f".{design.attr}")
            touched.setdefault(use.path, set()).add(use.node.lineno)
        new_path = f"{design.target_module}.{design.component}"
        for p in patches:
            e = edits.setdefault(p.path, SourceEdits(text_of(p.path)))
            spelled = e.segment(p.node)
            old = f"{run.source_module}.{design.owner}.{p.method}"
            if spelled.count(old) != 1:
                raise Conflicts([Location(p.path, p.node.lineno, f"names {old!r} in a string spelled in a way this "
                                                                 f"tool does not rewrite: write {new_path}.{p.method} "
                                                                 f"there")])
            e.replace_node(p.node, spelled.replace(old, f"{new_path}.{p.method}"))
        module = tree.module
        files: dict[Path, str] = {}
        originals: dict[Path, Optional[str]] = {}
        for path, e in edits.items():
            new = restyle(e.result(), touched.get(path, set()), style)
            if path == run.source:
                module = parse(path, new)
            else:
                files[path] = new
                originals[path] = run.originals[path] if path in run.originals else text_of(path)
        kept = set(public) if spec.keep_wrappers else values & set(public)
        _, cls = top_class(module, design.owner, run.source)
        body = [s for s in cls.body.body if not (isinstance(s, cst.FunctionDef) and s.name.value in public
                                                 and s.name.value not in kept)]
        removed = len(cls.body.body) - len(body)
        if removed:
            new_cls = cls.with_changes(body=cls.body.with_changes(body=body))
            module = module.with_changes(body=[new_cls if s is cls else s for s in module.body])
        files_touched = len({u.path for u in callers} | {p.path for p in patches})
        kept_note = f"; {', '.join(sorted(kept))} kept (handed around as a value)" if kept and not spec.keep_wrappers \
            else ""
        counted = f"  {len(callers)} call(s) in {files_touched} file(s) now go through {design.attr}; {removed} " \
                  f"delegation(s) dropped" + (f", kept: {', '.join(sorted(kept))}" if kept else "")
        return Outcome(f"Call {design.owner}'s {_listed(public)} through {design.attr}{kept_note}", module, files,
                       originals, messages=[counted], notes=[f"  {n}" for n in uses.notes])


def _called(owner: ast.ClassDef, names: list[str]) -> bool:
    """Whether the owner's other methods still call one of `names` through self (not through the component)."""
    for s in owner.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name not in names:
            for n in ast.walk(s):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in names \
                        and isinstance(n.func.value, ast.Name) and n.func.value.id == "self":
                    return True
    return False


def _values(owner: ast.ClassDef, names: list[str]) -> set[str]:
    """Those of `names` the owner's methods hand around as a value (`self.m` not called)."""
    called = {id(n.func) for n in ast.walk(owner) if isinstance(n, ast.Call)}
    return {n.attr for n in ast.walk(owner) if isinstance(n, ast.Attribute) and n.attr in names
            and isinstance(n.value, ast.Name) and n.value.id == "self" and id(n) not in called}


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{len(names)} methods"
