"""Step 2: the statements every direct subclass's `__init__` runs right after
`super().__init__(...)` (their common prefix, a statement further on brought forward when what
precedes it commutes with it) end BASE's `__init__` (the first direct subclass's copy, its
comments with it) and leave each subclass's `__init__`, which keeps the rest."""

from __future__ import annotations

import libcst as cst

from codemods.core.runner import Outcome, Tree
from codemods.core.steps import Step
from codemods.pull_up.models import PullUpRun, Reading
from codemods.pull_up.steps.edits import apply, function
from codemods.syntax.nodes import parse, top_class


def _with_init_body(cls: cst.ClassDef, body: list) -> cst.ClassDef:
    i, init = function(cls, "__init__")
    members = list(cls.body.body)
    members[i] = init.with_changes(body=init.body.with_changes(body=body))
    return cls.with_changes(body=cls.body.with_changes(body=members))


class InitTail(Step[PullUpRun, None]):
    number = 2

    def done(self, reading: Reading) -> bool:
        """The direct subclasses' __init__ share no statement right after super().__init__(...)."""
        return reading.tail_empty

    def run(self, run: PullUpRun, tree: Tree, carry: None) -> Outcome[None]:
        design, family = run.tail, run.family
        base = family.base
        t = design.template
        text = tree.text if t.path == tree.source else tree.current.get(t.path) or t.path.read_text()
        _, node = top_class(parse(t.path, text), t.name, t.path)
        template_body = function(node, "__init__")[1].body.body
        moved = [template_body[i] for i in design.statements]
        if moved:
            comments = [line for line in moved[0].leading_lines if line.comment is not None]
            moved[0] = moved[0].with_changes(leading_lines=comments)

        def into_base(cls: cst.ClassDef) -> cst.ClassDef:
            body = list(function(cls, "__init__")[1].body.body)
            return _with_init_body(cls, body + moved)

        def out_of(qualname: str):
            def edit(cls: cst.ClassDef) -> cst.ClassDef:
                body = list(function(cls, "__init__")[1].body.body)
                gone = set(design.removed[qualname])
                kept = [s for i, s in enumerate(body) if i not in gone]
                return _with_init_body(cls, kept)
            return edit

        edits: dict = {base.path: {base.name: into_base}}
        for c in family.direct:
            if c.qualname in design.removed:
                edits.setdefault(c.path, {})[c.name] = out_of(c.qualname)
        module, files, originals = apply(tree, run.render, edits, {base.path: list(design.imports)},
                                         run.ctx.style, lambda p: run.ctx.checkout.package_of(p) or "")
        said = "; ".join(design.texts)
        messages = [f"  {base.name}.__init__ ends with `{said}`, which "
                    f"{', '.join(c.name for c in family.direct)} ran right after super().__init__(...)"]
        if design.imports:
            messages.append(f"  {run.ctx.checkout.relative(base.path)} imports "
                            f"{', '.join(cst.Module([]).code_for_node(i).strip() for i in design.imports)}")
        return Outcome(f"Pull up the end of __init__ into {base.name}", module, files=files, originals=originals,
                       messages=messages, notes=[f"  {n}" for n in design.notes])
