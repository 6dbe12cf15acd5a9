"""Step 1: extract the base: the members asked for, the state's statements of `__init__` as the
base's `__init__`, and a stub per hook, into `class BASE(<CLASS's bases>)`; CLASS inherits from
BASE, its `__init__` calls `super().__init__(...)` where the span was (or goes, when nothing of it
stays), and `super().X` of a member BASE now defines reads `super(BASE, self).X`.

In CLASS's module, BASE goes right above CLASS; in another module, it is merged in with the
imports and globals its code needs (`travelling_code`), and CLASS's module imports it.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from codemods.checkout.import_graph import ImportGraph, module_imports
from codemods.core.errors import Refusal
from codemods.core.formatting import format_module
from codemods.core.runner import Outcome, Tree
from codemods.core.steps import Step
from codemods.extract_superclass.analysis import Design
from codemods.extract_superclass.models import Reading, SuperclassRun
from codemods.syntax.annotations import is_lazy
from codemods.syntax.import_placement import add_import, from_import
from codemods.syntax.nodes import binding_line, parse, top_class, use_line_in
from codemods.syntax.target_module import merge_into
from codemods.syntax.travelling_code import Annotations, free_names, travelling_code
from codemods.syntax.type_checking import add_type_checking_imports

FUTURE = "from __future__ import annotations\n"
KEPT_DECORATORS = ("staticmethod", "classmethod")


class _SuperOf(cst.CSTTransformer):
    """`super().X` -> `super(BASE, me).X` for X in `names`, `me` the first parameter of the
    enclosing method."""

    def __init__(self, base: str, names: frozenset[str], me: Optional[str] = None):
        self.base, self.names = base, names
        self.me: list[Optional[str]] = [me] if me else []
        self.count = 0

    def visit_FunctionDef(self, node):
        params = [*node.params.posonly_params, *node.params.params]
        self.me.append(self.me[-1] if self.me else (params[0].name.value if params else None))

    def leave_FunctionDef(self, original, updated):
        self.me.pop()
        return updated

    def leave_Attribute(self, original, updated):
        value = updated.value
        if updated.attr.value in self.names and isinstance(value, cst.Call) and not value.args \
                and isinstance(value.func, cst.Name) and value.func.value == "super" and self.me and self.me[-1]:
            self.count += 1
            return updated.with_changes(value=value.with_changes(
                args=[cst.Arg(cst.Name(self.base)), cst.Arg(cst.Name(self.me[-1]))]))
        return updated


def _stub(fn: cst.FunctionDef) -> cst.FunctionDef:
    decorators = [d for d in fn.decorators if isinstance(d.decorator, cst.Name)
                  and d.decorator.value in KEPT_DECORATORS]
    return fn.with_changes(decorators=decorators, leading_lines=[cst.EmptyLine(indent=False)],
                           body=cst.SimpleStatementSuite(body=[cst.Expr(cst.Ellipsis())]))


def _super_call(init: cst.FunctionDef, design: Design) -> cst.SimpleStatementLine:
    """`super().__init__(...)`: the parameters the span reads, as the base's __init__ takes them."""
    split = design.init
    p = init.params
    posonly = [x.name.value for x in p.posonly_params if x.name.value in split.params]
    args = [cst.Arg(cst.Name(n)) for n in posonly]
    if isinstance(p.star_arg, cst.Param) and p.star_arg.name.value in split.params:
        args.append(cst.Arg(cst.Name(p.star_arg.name.value), star="*"))
    named = list(p.params) if p.posonly_params else list(p.params[1:])
    for x in named + list(p.kwonly_params):
        if x.name.value in split.params:
            args.append(_keyword(x.name.value))
    for n in split.extra:
        args.append(_keyword(n))
    if isinstance(p.star_kwarg, cst.Param) and p.star_kwarg.name.value in split.params:
        args.append(cst.Arg(cst.Name(p.star_kwarg.name.value), star="**"))
    call = cst.Call(cst.Attribute(cst.Call(cst.Name("super")), cst.Name("__init__")), args=args)
    return cst.SimpleStatementLine(body=[cst.Expr(call)])


def _keyword(name: str) -> cst.Arg:
    tight = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    return cst.Arg(cst.Name(name), keyword=cst.Name(name), equal=tight)


def _base_params(init: cst.FunctionDef, design: Design) -> cst.Parameters:
    """CLASS.__init__'s parameters the span reads, the nodes kept as written (comments and all), then
    the prefix's locals it reads, keyword-only."""
    split = design.init
    p = init.params
    if split.whole:
        return p
    keep = set(split.params)
    first = p.posonly_params[:1] if p.posonly_params else p.params[:1]

    def kept(params) -> list[cst.Param]:
        return [x for x in params if x.name.value in keep]

    posonly = [*first, *kept(p.posonly_params[1:])] if p.posonly_params else []
    params = kept(p.params) if p.posonly_params else [*first, *kept(p.params[1:])]
    kwonly = kept(p.kwonly_params) + [cst.Param(cst.Name(n)) for n in split.extra]
    star = p.star_arg if isinstance(p.star_arg, cst.Param) and p.star_arg.name.value in keep else (
        p.star_arg if isinstance(p.star_arg, cst.ParamStar) and kwonly else
        cst.ParamStar() if kwonly else cst.MaybeSentinel.DEFAULT)
    kwarg = p.star_kwarg if isinstance(p.star_kwarg, cst.Param) and p.star_kwarg.name.value in keep else None
    if (posonly, params, kwonly, star, kwarg) == (list(p.posonly_params), list(p.params), list(p.kwonly_params),
                                                 p.star_arg, p.star_kwarg):
        return p
    return p.with_changes(params=params, posonly_params=posonly, kwonly_params=kwonly, star_arg=star,
                          star_kwarg=kwarg, posonly_ind=p.posonly_ind if posonly else cst.MaybeSentinel.DEFAULT)


def _one_line_header(fn: cst.FunctionDef) -> cst.FunctionDef:
    """`fn` with its parameters' line breaks and trailing comma gone, as a person writes a header
    cut down from a longer one (they were the longer list's: black keeps a list that ends in a comma
    exploded); black breaks it again if it is too long. Unchanged when a comment sits among the
    parameters (it would be lost)."""
    p = fn.params
    if "#" in cst.Module([]).code_for_node(p):
        return fn
    space = cst.SimpleWhitespace(" ")

    def tidy(x):
        if isinstance(x, cst.Param):
            x = x.with_changes(whitespace_after_param=cst.SimpleWhitespace(""))
        if isinstance(getattr(x, "comma", None), cst.Comma):
            x = x.with_changes(comma=cst.Comma(whitespace_after=space))
        return x

    parts = {"posonly_params": [tidy(x) for x in p.posonly_params], "params": [tidy(x) for x in p.params],
             "kwonly_params": [tidy(x) for x in p.kwonly_params]}
    for key in ("posonly_ind", "star_arg", "star_kwarg"):
        x = getattr(p, key)
        parts[key] = tidy(x) if isinstance(x, cst.CSTNode) else x
    order = [("posonly_params", i) for i in range(len(parts["posonly_params"]))] + [("posonly_ind", None)] + [
        ("params", i) for i in range(len(parts["params"]))] + [("star_arg", None)] + [
        ("kwonly_params", i) for i in range(len(parts["kwonly_params"]))] + [("star_kwarg", None)]
    present = [(k, i) for k, i in order if (i is not None or isinstance(parts[k], cst.CSTNode))]
    if present:
        k, i = present[-1]
        last = parts[k][i] if i is not None else parts[k]
        if isinstance(getattr(last, "comma", None), cst.Comma):
            last = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
            if i is not None:
                parts[k] = [*parts[k][:i], last]
            else:
                parts[k] = last
    return fn.with_changes(params=p.with_changes(**parts), whitespace_before_params=cst.SimpleWhitespace(""))


def _blank_free(node: cst.CSTNode) -> cst.CSTNode:
    """`node` without the blank lines above it (its comments kept)."""
    lines = list(node.leading_lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return node.with_changes(leading_lines=lines)


def split_class(run: SuperclassRun, cls: cst.ClassDef) -> tuple[cst.ClassDef, cst.ClassDef, list[str]]:
    """(BASE, CLASS as it becomes, what was done) from CLASS's node."""
    design, spec = run.design, run.spec
    members: list[cst.BaseStatement] = []
    kept: list[cst.BaseStatement] = []
    said: list[str] = []
    hooks = {}
    rewrite = _SuperOf(spec.base, design.base_names)
    for s in cls.body.body:
        name = s.name.value if isinstance(s, cst.FunctionDef) else None
        if name in design.moved:
            members.append(s)
        elif name == "__init__" and design.init is not None:
            split = design.init
            body = list(s.body.body)
            base_params = _base_params(s, design)
            base_init = s.with_changes(params=base_params, decorators=[], body=s.body.with_changes(
                body=[_blank_free(body[i]) if n == 0 else body[i] for n, i in enumerate(split.span)]))
            if base_params is not s.params:
                base_init = _one_line_header(base_init)
            members.append(base_init)
            if not split.whole:
                params = [*s.params.posonly_params, *s.params.params]
                within = _SuperOf(spec.base, design.base_names, params[0].name.value if params else None)
                prefix = [body[i].visit(within) for i in split.prefix]
                suffix = [body[i].visit(within) for i in split.suffix]
                rewrite.count += within.count
                kept.append(s.with_changes(body=s.body.with_changes(body=prefix + [_super_call(s, design)] + suffix)))
        else:
            if name in design.stubs and name not in hooks:
                hooks[name] = _stub(s)
            kept.append(s.visit(rewrite))
    members += list(hooks.values())
    if members:
        members[0] = _blank_free(members[0])
    if rewrite.count:
        said.append(f"  {rewrite.count} super().X of a member {spec.base} now defines read super({spec.base}, "
                    f"self).X (resolving as before)")
    if kept and kept[0] is not cls.body.body[0]:
        kept[0] = _blank_free(kept[0])
    if not any(isinstance(s, (cst.FunctionDef, cst.ClassDef, cst.SimpleStatementLine)) for s in kept):
        kept.append(cst.SimpleStatementLine(body=[cst.Pass()]))
    lines = list(cls.leading_lines)  # the blank lines above CLASS go above the base, its comments stay with it
    blanks = []
    while lines and lines[0].comment is None:
        blanks.append(lines.pop(0))
    base = cls.with_changes(name=cst.Name(spec.base), decorators=[], leading_lines=blanks,
                            body=cls.body.with_changes(body=members))
    new_cls = cls.with_changes(bases=[cst.Arg(cst.Name(spec.base))], lpar=cst.LeftParen(), rpar=cst.RightParen(),
                               body=cls.body.with_changes(body=kept),
                               leading_lines=[cst.EmptyLine(indent=False)] * 2 + lines if run.same_module else
                               cls.leading_lines)
    return base, new_cls, said


class Extract(Step[SuperclassRun, None]):
    number = 1

    def done(self, reading: Reading) -> bool:
        return reading.applied

    def run(self, run: SuperclassRun, tree: Tree, carry: None) -> Outcome[None]:
        spec, design = run.spec, run.design
        module = tree.module
        index, cls = top_class(module, spec.class_name, run.source, tree.text)
        base, new_cls, said = split_class(run, cls)
        files, originals = {}, {}
        if run.same_module:
            body = [*module.body[:index], base, new_cls, *module.body[index + 1:]]
            module = module.with_changes(body=body)
        else:
            old = run.originals.get(run.target)
            new_target = _target_text(run, tree.text, module, base, old)
            _check_cycles(run, old, new_target)
            files, originals = {run.target: new_target}, {run.target: old}
            module = module.with_changes(body=[*module.body[:index], new_cls, *module.body[index + 1:]])
            module = add_import(module, from_import(spec.target_module, [spec.base]), run.ctx.style,
                                run.source_module.rpartition(".")[0])
        init = design.init
        messages = [f"  {spec.base} takes {', '.join(design.moved)} from {spec.class_name}"]
        if init is not None:
            where = "its __init__ goes (the base's takes its parameters)" if init.whole else \
                "its __init__ calls super().__init__(...) where they were"
            messages.append(f"  {spec.base}.__init__ sets {', '.join(design.state)} (the statements of "
                            f"{spec.class_name}.__init__ from line {init.line}, in their order); {where}")
        if design.stubs:
            messages.append(f"  hooks {spec.base} declares ({spec.class_name} overrides them): "
                            f"{', '.join(design.stubs)}")
        messages += said
        return Outcome(f"Extract {spec.base} from {spec.class_name}", module, files=files, originals=originals,
                       messages=messages, notes=[f"  {n}" for n in design.notes])


def _target_text(run: SuperclassRun, text: str, owner: cst.Module, base: cst.ClassDef, old: Optional[str]) -> str:
    spec = run.spec
    package = run.source_module.rpartition(".")[0]
    target_module = parse(run.target, old) if old is not None else None
    lazy = is_lazy(target_module) if target_module is not None else True
    base = base.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])

    def use_line(name: str) -> int:
        return use_line_in(text, name, spec.class_name, spec.methods)

    names = free_names([base]) - free_names([base.visit(_NoAnnotations())])
    annotations = Annotations(frozenset(names), lazy, run.source_module, run.source_module.split(".")[0])
    imports, globals_, type_imports = travelling_code(owner, text, [base], package, run.source, {spec.base},
                                                      use_line, annotations)
    if target_module is None:
        head = cst.Module(body=[cst.parse_statement(FUTURE), *imports])
        head = add_type_checking_imports(head, type_imports, run.ctx.style, spec.target_module.rpartition(".")[0])
        body = [*head.body, *(g.with_changes(leading_lines=[cst.EmptyLine()]) for g in globals_), base]
        return format_module(cst.Module(body=body).code, run.ctx.style)
    return merge_into(old, run.target, spec.target_module, spec.target_module.rpartition(".")[0], imports,
                      type_imports, globals_, [], base, run.ctx.style,
                      lambda name: f"{run.source}:{binding_line(text, name) or 1}")


class _NoAnnotations(cst.CSTTransformer):
    def leave_Param(self, original, updated):
        return updated.with_changes(annotation=None)

    def leave_FunctionDef(self, original, updated):
        return updated.with_changes(returns=None)

    def leave_AnnAssign(self, original, updated):
        value = updated.value if updated.value is not None else cst.Name("None")
        return cst.Assign(targets=[cst.AssignTarget(updated.target)], value=value)


def _check_cycles(run: SuperclassRun, old: Optional[str], new: str) -> None:
    spec = run.spec
    package = spec.target_module.rpartition(".")[0]
    added = sorted(module_imports(new, spec.target_module, package, run.ctx.checkout)
                   - module_imports(old, spec.target_module, package, run.ctx.checkout))
    cycle = ImportGraph(run.ctx.checkout).cycle_closed_by([(run.source_module, spec.target_module), *added])
    if cycle is not None:
        raise Refusal(f"{spec.target_module} and {run.source_module} would import each other "
                      f"({' -> '.join(cycle)}): choose another target module, or the class's own",
                      run.source, run.cls_ast.lineno)
