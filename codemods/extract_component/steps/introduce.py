"""Step 1: introduce the component: its class (fields, getters, callbacks, moved state), and the
owner building it.

The target module gets the class (a new module starts with `from __future__ import annotations`,
the names only the fields' annotations use imported under `if TYPE_CHECKING:`). The owner's
`__init__` loses the moved state's initialisation and calls `self.init_ATTR()` at the building
point (`analysis.infer`); `init_ATTR` follows `__init__`; the owner's code reaching the moved
state (the moved methods, still on the owner, and with `--state` the staying readers) reaches it
through the component: `self._weights_send_group` -> `self.weight_exporter._weights_send_group`,
each statement so touched formatted again (black), nothing else of the file changed.
"""

from __future__ import annotations

import libcst as cst

from codemods.core.errors import Refusal
from codemods.core.packages import described, new_packages
from codemods.core.formatting import Style, format_statement
from codemods.core.runner import Outcome, Tree
from codemods.core.steps import Step
from codemods.extract_component import build
from codemods.extract_component.design import Design
from codemods.extract_component.models import ComponentRun, Reading
from codemods.extract_component.target import add_class, check_cycles
from codemods.syntax.import_placement import add_import, from_import
from codemods.syntax.nodes import binding_line, top_class


class _ThroughComponent(cst.CSTTransformer):
    """`self.STATE` -> `self.ATTR.STATE` in the methods named, `self` being each one's first parameter;
    each statement it touches formatted again (black), a compound statement's header alone."""

    def __init__(self, methods: set[str], state: set[str], attr: str, style: Style):
        self.methods, self.state, self.attr, self.style = methods, state, attr, style
        self.me: list = []
        self.depth = 0  # indented blocks around the node visited
        self.touched: list[int] = []  # per open statement: the rewrites outside the statements it holds

    def on_visit(self, node):
        if isinstance(node, cst.IndentedBlock):
            self.depth += 1
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.touched.append(0)
        return super().on_visit(node)

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(original, cst.IndentedBlock):
            self.depth -= 1
        if isinstance(original, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and self.touched.pop():
            result = _formatted(result, self.depth, self.style)
        return result

    def visit_FunctionDef(self, node):
        params = node.params.params
        self.me.append(params[0].name.value if node.name.value in self.methods and params and not self.me else
                       (self.me[-1] if self.me else None))

    def leave_FunctionDef(self, original, updated):
        self.me.pop()
        return updated

    def leave_Attribute(self, original, updated):
        me = self.me[-1] if self.me else None
        if me and isinstance(updated.value, cst.Name) and updated.value.value == me \
                and updated.attr.value in self.state:
            if self.touched:
                self.touched[-1] += 1
            return updated.with_changes(value=cst.Attribute(cst.Name(me), cst.Name(self.attr)))
        return updated


# the compound statements whose header is all their own code but their blocks (`body`, `orelse`)
_HEADED = (cst.If, cst.For, cst.While, cst.With)


def _formatted(node: cst.BaseStatement, depth: int, style: Style) -> cst.BaseStatement:
    """`node` as black lays it out; of a compound statement only the header (`if ...:`), its blocks
    kept as they are. Other compound statements (a `try` whose `except` clause was touched, a
    `match`) are left as they are."""
    if isinstance(node, cst.SimpleStatementLine):
        return format_statement(node, depth, style)
    if not isinstance(node, _HEADED):
        return node
    blocks = {"body": node.body, **({"orelse": node.orelse} if hasattr(node, "orelse") else {})}
    header = node.with_changes(body=cst.IndentedBlock(body=[cst.SimpleStatementLine([cst.Pass()])]),
                               **{name: None for name in blocks if name != "body"})
    return format_statement(header, depth, style).with_changes(**blocks)


class Introduce(Step[ComponentRun, None]):
    number = 1

    def done(self, reading: Reading) -> bool:
        """The component's module defines it and the owner builds it (`init_ATTR`)."""
        return reading.component is not None and f"init_{reading.spec.attr}" in reading.defs

    def run(self, run: ComponentRun, tree: Tree, carry: None) -> Outcome[None]:
        design, inferred, ctx = run.design, run.inferred, run.ctx
        style = ctx.style
        _, cls = top_class(tree.module, design.owner, run.source)
        body = list(cls.body.body)
        init_at = next(i for i, s in enumerate(body) if isinstance(s, cst.FunctionDef) and s.name.value == "__init__")
        init = body[init_at]
        statements = list(init.body.body)
        if len(statements) != len(run.owner.init.body):
            raise Refusal(f"{design.owner}.__init__ puts several statements on one line: split them first",
                          run.source, run.owner.init.body[0].lineno if run.owner.init.body else None)
        call = cst.parse_statement(f"self.{design.builder}()\n")
        me = init.params.params[0].name.value
        if me != "self":
            call = cst.parse_statement(f"{me}.{design.builder}()\n")
        at = inferred.construct_at
        kept = []
        for i, s in enumerate(statements):
            if i == at:
                lead = s.leading_lines if i in inferred.removed else ()
                kept.append(call.with_changes(leading_lines=lead))
            if i not in inferred.removed:
                kept.append(s)
        if at >= len(statements):
            kept.append(call)
        init = init.with_changes(body=init.body.with_changes(body=kept))
        readers = {m for names in inferred.readers.values() for m in names}
        through = _ThroughComponent(set(design.methods) | readers, {f.name for f in design.state}, design.attr,
                                    style)
        body = [s.visit(through) if isinstance(s, cst.FunctionDef) and (
            s.name.value in design.methods or s.name.value in readers) else s for s in body]
        body[init_at] = init
        builder = format_statement(build.member(build.builder_code(design), cls.body.indent or "    "), 1, style)
        builder = builder.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        body.insert(init_at + 1, builder)
        new_cls = cls.with_changes(body=cls.body.with_changes(body=body))
        module = tree.module.with_changes(body=[new_cls if s is cls else s for s in tree.module.body])
        package = run.source_module.rpartition(".")[0]
        module = add_import(module, from_import(design.target_module, [design.component]), style, package)
        old = run.text_of(tree, run.target)
        if old is not None:
            bound = binding_line(old, design.component)
            if bound:
                raise Refusal(f"{design.target_module} already binds {design.component}: choose another component "
                              f"name (or module)", run.target, bound)
        new_target = add_class(run, tree.text, old, build.class_code(design), design)
        check_cycles(run, old, new_target)
        files = {run.target: new_target}
        originals = {run.target: run.originals.get(run.target, old)}
        notes = []
        for init_file in new_packages(ctx.root, run.target):
            files[init_file] = ""
            originals[init_file] = None
            notes += [f"step 1: {line}" for line in described(ctx.root, [init_file])]
        subject = f"Introduce {design.component} for {design.owner}'s " \
                  f"{_listed([m for m in design.methods if m not in design.helpers])}"
        return Outcome(subject, module, files, originals, messages=self.report(design), notes=notes)

    def report(self, d: Design) -> list[str]:
        kinds = {"value": "fields", "getter": "getters", "callback": "callbacks", "owner": "owner", "state": "moved state"}
        parts = []
        for kind, label in kinds.items():
            found = d.by_kind(kind)
            if found:
                parts.append(f"{label}: " + ", ".join(
                    f.name if kind in ("state",) or f.argument == f"self.{f.name}" else f"{f.name}={f.argument}"
                    for f in found))
        return [f"  {d.component}: " + "; ".join(parts)]


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{len(names)} methods"

