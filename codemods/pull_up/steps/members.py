"""Step 1: the members every direct subclass of BASE defines alike go up into BASE (the first
direct subclass's copy, its comments with it; in place of BASE's own definition, else at the end
of BASE's body) and leave every direct subclass (a body left empty holds `pass`); the imports
the copy needs and BASE's module lacks are added there."""

from __future__ import annotations

import libcst as cst

from codemods.core.runner import Outcome, Tree
from codemods.core.steps import Step
from codemods.pull_up.models import PullUpRun, Reading
from codemods.pull_up.steps.edits import apply, blank_above, function, with_body
from codemods.syntax.nodes import parse, top_class


class Members(Step[PullUpRun, None]):
    number = 1

    def done(self, reading: Reading) -> bool:
        """BASE holds every member asked for and no direct subclass defines one."""
        return reading.members_applied

    def run(self, run: PullUpRun, tree: Tree, carry: None) -> Outcome[None]:
        design, family = run.members, run.family
        base = family.base
        copies: dict[str, cst.FunctionDef] = {}
        for m in design.members:
            cls = design.template[m]
            text = tree.text if cls.path == tree.source else tree.current.get(cls.path) or cls.path.read_text()
            _, node = top_class(parse(cls.path, text), cls.name, cls.path)
            copies[m] = function(node, m)[1]

        def into_base(cls: cst.ClassDef) -> cst.ClassDef:
            body = list(cls.body.body)
            for m in design.members:
                if m in design.replaces:
                    i, old = function(cls.with_changes(body=cls.body.with_changes(body=body)), m)
                    body[i] = copies[m].with_changes(leading_lines=old.leading_lines)
                else:
                    body.append(blank_above(copies[m]))
            return cls.with_changes(body=cls.body.with_changes(body=body))

        def out_of_subclass(cls: cst.ClassDef) -> cst.ClassDef:
            body = [s for s in cls.body.body if not (isinstance(s, cst.FunctionDef) and s.name.value in design.members)]
            if body and body[0] is not cls.body.body[0]:
                body[0] = blank_above(body[0], 0)  # no blank line right under the class statement
            return with_body(cls, body)

        edits: dict = {base.path: {base.name: into_base}}
        for c in family.direct:
            edits.setdefault(c.path, {})[c.name] = out_of_subclass
        module, files, originals = apply(tree, run.render, edits, {base.path: list(design.imports)},
                                         run.ctx.style, lambda p: run.ctx.checkout.package_of(p) or "")
        names = ", ".join(design.members)
        messages = [f"  {base.name} takes {names} (the copy of "
                    f"{', '.join(sorted({design.template[m].name for m in design.members}))}); "
                    f"{len(family.direct)} direct subclass(es) lose them: "
                    f"{', '.join(c.name for c in family.direct)}"]
        if design.replaces:
            messages.append(f"  in place of {base.name}'s own {', '.join(design.replaces)}")
        if design.imports:
            messages.append(f"  {run.ctx.checkout.relative(base.path)} imports "
                            f"{', '.join(cst.Module([]).code_for_node(i).strip() for i in design.imports)}")
        return Outcome(f"Pull up {names} into {base.name}", module, files=files, originals=originals,
                       messages=messages, notes=[f"  {n}" for n in design.notes])
