"""Step 2: cut the static method and its module globals out into the target module.

The target gets exactly the imports and globals the moved code needs (found by scope
analysis on the moved code alone): a new module is written whole, an existing one gets the
function appended and only what it lacks (`target_module.merge_into`). The method is cut out
of the class entirely (as upstream's step 2 does), and every call site step 1 wrote calls the
module function directly (`self.y = module.f(...)`). The source module imports the target
module (`from package import module`), never the function, so the tree keeps working between
steps. `move_function` returns the method's index in the class body: a run that goes on to
step 3 puts the wrapper back exactly there (see `leave_wrapper`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path
from typing import Optional

import libcst as cst

from codemods.extract_method.call_sites import find_sites, holders, require_calls, require_sites, rewrite_sites
from codemods.syntax.nodes import binding_line, class_members, def_line, parse, plain_names, top_class, use_line_from
from codemods.core.errors import Refusal
from codemods.core.formatting import Style, format_module
from codemods.syntax.annotations import annotation_only, is_lazy
from codemods.syntax.travelling_code import Annotations, travelling_code
from codemods.syntax.import_placement import add_import, from_import
from codemods.syntax.import_statements import absolute_module, bound_name, index_bindings, module_name
from codemods.extract_method.recipe import Recipe
from codemods.syntax.target_module import merge_into
from codemods.syntax.type_checking import add_type_checking_imports
from codemods.core.steps import Step
from codemods.core.errors import BadInput
from codemods.core.packages import described, new_packages
from codemods.extract_method.move_conflicts import refuse_new_cycle
from codemods.core.runner import Outcome, Tree
from codemods.extract_method.models import Handed, Hole, MethodRun
from codemods.extract_method.steps_done import Reading
from codemods.checkout.references import Move, update_references
from codemods.syntax.tidy import candidates
from pysource.checkout import Checkout

FUTURE = cst.parse_statement("from __future__ import annotations\n")


def _comments_only(lines) -> list[cst.EmptyLine]:
    return [ln for ln in lines if ln.comment is not None]


def _blank(n: int) -> list[cst.EmptyLine]:
    return [cst.EmptyLine() for _ in range(n)]


def move_function(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style,
                  target: Path, target_text: Optional[str], members: Optional[dict] = None,
                  on_disk: Optional[str] = None) -> tuple[cst.Module, str, Hole]:
    """(new source module, target module text, (index the method had in the class body, its
    blank leading lines): where a run that goes on to step 3 puts the wrapper). `on_disk`: the
    source module as the user's file holds it (refusals point at its lines; its module globals
    are those of `text`, which step 1 changed inside the class only)."""
    on_disk = on_disk or text
    cls_index, cls = top_class(module, recipe.class_name, path)
    line = def_line(text, recipe.class_name, recipe.method_name)
    (index, func), = class_members(cls, recipe.method_name)
    bindings = index_bindings(module)
    alias = recipe.target_alias
    package = recipe.source_module.rpartition(".")[0]
    imported = imports_target(module, bindings, recipe, package)
    if alias in bindings and not imported:
        raise Refusal(f"the module already binds {alias!r}; the module import would clash", path,
                      binding_line(text, alias) or line)
    if class_members(cls, alias):
        raise Refusal(f"{recipe.class_name} already binds {alias!r}; the module import would clash", path,
                      def_line(text, recipe.class_name, alias) or line)

    moved_idx: list[int] = []
    for name in recipe.moved_globals:
        found = bindings.get(name, [])
        if not found:  # older releases have no such global (0.5.7-0.5.8.post1: no table)
            continue
        if len(found) != 1 or found[0].kind != "assign":
            what = "a function or class" if len(found) == 1 and found[0].kind == "definition" else \
                "not bound exactly once by a plain module-level assignment"
            raise Refusal(f"{name} is {what}: --move-global moves a module-level assignment (a table, a "
                          f"constant) only; move {name} by hand first, or leave it where it is", path,
                          binding_line(on_disk, name, 1) or binding_line(on_disk, name) or line)
        moved_idx.append(found[0].index)
    moved_globals = [module.body[i] for i in moved_idx]
    function = func.with_changes(name=cst.Name(recipe.function), decorators=[],
                                 leading_lines=[*_blank(2), *_comments_only(func.leading_lines)])

    own_globals: set[str] = set()  # names the function now finds in its own module
    if target_text is not None:
        function, own_globals = _without_target_imports(function, recipe, package,
                                                        set(index_bindings(parse(target, target_text))))
    if recipe.group_functions and imported:
        function, rewired = _call_group_by_name(function, recipe, path, line)
        own_globals |= rewired

    def use_line(name: str) -> int:
        return use_line_from(on_disk, name, def_line(on_disk, recipe.class_name, recipe.method_name))

    target_module = parse(target, target_text) if target_text is not None else None
    lazy = is_lazy(target_module) if target_module is not None else recipe.future_annotations
    annotations = Annotations(frozenset(annotation_only([function])), lazy, recipe.source_module,
                              recipe.source_module.split(".")[0])
    imports, globals_, type_imports = travelling_code(module, on_disk, [*moved_globals, function], package, path,
                                                      set(recipe.moved_globals) | own_globals, use_line, annotations)
    if target_text is None:
        head = cst.Module(body=[*([FUTURE] if lazy else []), *imports])
        head = add_type_checking_imports(head, type_imports, style, recipe.target_package)
        body = list(head.body)
        for g in globals_:
            body.append(g.with_changes(leading_lines=_blank(1)))
        for g in moved_globals:
            body.append(g.with_changes(leading_lines=[*_blank(1), *_comments_only(g.leading_lines)]))
        body.append(function)
        target_code = format_module(cst.Module(body=body).code, style)
    else:
        target_code = merge_into(target_text, target, recipe.target_module, recipe.target_package, imports,
                                 type_imports, globals_, moved_globals, function, style,
                                 lambda name: f"{path}:{binding_line(on_disk, name) or use_line(name)}"
                                 if name != recipe.function else f"{path}:{use_line(recipe.method_name)}")

    # The source module: drop the moved globals and the method, call the module function at
    # the call sites, import the target module.
    new_body = [s for i, s in enumerate(module.body) if i not in moved_idx]
    cls_members = list(cls.body.body)
    hole = (index, [ln for ln in func.leading_lines if ln.comment is None])
    del cls_members[index]
    new_cls = cls.with_changes(body=cls.body.with_changes(body=cls_members))
    new_cls = retarget_call_sites(new_cls, text, path, recipe, style, members, imported)
    new_body[new_body.index(cls)] = new_cls
    new_module = module.with_changes(body=new_body)
    if not imported:
        new_module = add_import(new_module, from_import(recipe.target_package, [alias]), style, package)

    moved_text = "".join(cst.Module(body=[s]).code for s in [*moved_globals, func])
    for name in recipe.moved_globals:
        pat = re.compile(rf"\b{re.escape(name)}\b")
        if len(pat.findall(text)) > len(pat.findall(moved_text)):
            # the source module still uses a moved global: import it from its new home
            new_module = add_import(new_module, from_import(recipe.target_module, [name]), style, package)
    return new_module, target_code, hole


def imports_target(module: cst.Module, bindings: dict, recipe: Recipe, package: str) -> bool:
    """Whether the source module already binds the target module's name to it (`from pkg import mod`)."""
    for b in bindings.get(recipe.target_alias, []):
        if b.kind != "import" or b.alias is None:
            return False
        small = module.body[b.index].body[0]
        if not (isinstance(small, cst.ImportFrom) and absolute_module(small, package) == recipe.target_package
                and bound_name(b.alias, True) == recipe.target_alias and b.alias.asname is None):
            return False
    return bool(bindings.get(recipe.target_alias))


def retarget_call_sites(cls: cst.ClassDef, text: str, path: Path, recipe: Recipe, style: Style,
                        members: Optional[dict], imported: bool = False) -> cst.ClassDef:
    """`... = self.method(...)` (step 1's call sites) -> `... = module.function(...)`. `imported`: the
    module imports the target module as its alias already (a method reading the alias reads it)."""
    callee = f"self.{recipe.method_name}"
    sites = find_sites(cls, recipe.method_name, text, holders(text, recipe.class_name, recipe.method_name)
                       if members is None else members, path)
    require_sites(sites, recipe, path, callee)
    require_calls(sites, "self", path, recipe.qualified)
    alias = recipe.target_alias
    spelled = re.search(rf"(?<![\w.]){re.escape(alias)}\b", text) is not None  # else no name can be it
    for site in sites:
        line = site.statement
        if recipe.record and not (site.in_simple_statement and len(line.body) == 1
                                  and isinstance(line.body[0], cst.Assign) and line.body[0].value is site.call):
            raise Refusal(f"the call of {callee}(...) is not the unpacking assignment step 1 writes", path, site.line)
        if spelled and site.holder is not None and alias in plain_names(site.holder) \
                and (not imported or _binds_locally(site.holder, alias)):  # a read finds the module imported
            raise Refusal(f"{site.holder.name.value} already uses the name {alias!r}, which would hide the module "
                          f"{recipe.target_module} at the call site", path, site.line)
    to = cst.parse_expression(recipe.callee)
    return rewrite_sites(cls, sites, lambda site: site.call.with_changes(func=to), style)


class _DropTargetImports(cst.CSTTransformer):
    """Inside the moved function: `from <target> import X` (X bound there at top level, and
    nowhere else in the function) goes, since X is now the function's own module global."""

    def __init__(self, recipe: Recipe, package: str, droppable: set[str]):
        self.recipe, self.package, self.droppable = recipe, package, droppable
        self.dropped: set[str] = set()

    def leave_IndentedBlock(self, original, updated):
        body, carry = [], None
        for s in updated.body:
            if carry is not None:  # the next statement takes the dropped import's place (its blank lines)
                s = s.with_changes(leading_lines=[*carry, *(ln for ln in s.leading_lines if ln.comment)])
                carry = None
            new = self._without(s)
            if new is None:
                carry = list(s.leading_lines)
                continue
            body.append(new)
        return updated.with_changes(body=body) if len(body) != len(updated.body) or carry else updated

    def _without(self, s: cst.BaseStatement) -> Optional[cst.BaseStatement]:
        if not isinstance(s, cst.SimpleStatementLine) or len(s.body) != 1 or not isinstance(s.body[0], cst.ImportFrom) \
                or isinstance(s.body[0].names, cst.ImportStar) \
                or absolute_module(s.body[0], self.package) != self.recipe.target_module:
            return s
        small = s.body[0]
        keep = [a for a in small.names if a.asname is not None or module_name(a.name) not in self.droppable]
        self.dropped |= {module_name(a.name) for a in small.names if a not in keep}
        if not keep:
            return None
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return s.with_changes(body=[small.with_changes(names=keep)]) if len(keep) != len(small.names) else s


def _without_target_imports(function: cst.FunctionDef, recipe: Recipe, package: str, target_names: set[str]
                            ) -> tuple[cst.FunctionDef, set[str]]:
    tree = ast.parse(cst.Module(body=[function.with_changes(leading_lines=())]).code)
    bound: dict[str, int] = {}
    for node in ast.walk(tree.body[0]):
        names = []
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names = [node.id]
        elif isinstance(node, ast.alias):
            names = [node.asname or node.name.split(".")[0]]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not tree.body[0]:
            names = [node.name]
        for n in names:
            bound[n] = bound.get(n, 0) + 1
    droppable = {n for n, count in bound.items() if count == 1 and n in target_names}
    if not droppable:
        return function, set()
    dropper = _DropTargetImports(recipe, package, droppable)
    return function.visit(dropper), dropper.dropped


class _GroupCalls(cst.CSTTransformer):
    """`ALIAS.f` -> `f` for the functions `f` of the group already in the target."""

    def __init__(self, alias: str, functions: tuple[str, ...]):
        self.alias, self.functions = alias, functions
        self.rewired: set[str] = set()

    def leave_Attribute(self, original, updated):
        if isinstance(updated.value, cst.Name) and updated.value.value == self.alias \
                and updated.attr.value in self.functions:
            self.rewired.add(updated.attr.value)
            return cst.Name(updated.attr.value, lpar=updated.lpar, rpar=updated.rpar)
        return updated


def _call_group_by_name(function: cst.FunctionDef, recipe: Recipe, path: Path, line: Optional[int]
                        ) -> tuple[cst.FunctionDef, set[str]]:
    """Several methods in one run: the moved method calls an earlier one as `ALIAS.f(...)` (its
    call site, which step 3 left calling the function); in the target, the function's own module,
    it calls `f(...)`. Refused where the method binds ALIAS or uses `f` as a name itself."""
    names = plain_names(function.body) | {p.name.value for p in (*function.params.params,
                                                                   *function.params.kwonly_params)}
    rewriter = _GroupCalls(recipe.target_alias, recipe.group_functions)
    new = function.visit(rewriter)
    if not rewriter.rewired:
        return function, set()
    clash = sorted(rewriter.rewired & names)
    if recipe.target_alias in _bound_names(function):
        clash.append(recipe.target_alias)
    if clash:
        raise Refusal(f"{recipe.method_name} uses the name {clash[0]} itself: its calls of "
                      f"{recipe.target_alias}.{', '.join(sorted(rewriter.rewired))} cannot become calls by name in "
                      f"{recipe.target_module}; rename it first", path, line)
    return new, rewriter.rewired


def _bound_names(function: cst.FunctionDef) -> set[str]:
    tree = ast.parse(cst.Module(body=[function.with_changes(leading_lines=(), decorators=())]).code)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)} | \
        {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)} | \
        {(a.asname or a.name).split(".")[0] for a in ast.walk(tree) if isinstance(a, ast.alias)}


def _binds_locally(holder: cst.FunctionDef, name: str) -> bool:
    """Whether `holder` binds `name` itself (a parameter, an assignment, an import, a nested def,
    `global`): else its reads of `name` find the module's binding."""
    fn = ast.parse(cst.Module(body=[holder.with_changes(decorators=[], leading_lines=[])]).code).body[0]
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.name == name:
            return True
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and node.id == name \
                or isinstance(node, ast.arg) and node.arg == name \
                or isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                    (a.asname or a.name.partition(".")[0]) == name for a in node.names) \
                or isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names \
                or isinstance(node, ast.ExceptHandler) and node.name == name:
            return True
    return False


class MoveFunction(Step[MethodRun, Handed]):
    """Step 2: the static method and its globals move to the target module; the checkout follows."""

    number = 2

    def done(self, r: Reading) -> bool:
        """The static method is no longer in the class (step 1 is done)."""
        return not r.has_method or r.shape == "wrapper"

    def run(self, run: MethodRun, tree: Tree, carry: Handed) -> Outcome[Handed]:
        recipe, ctx, target = run.recipe, run.ctx, run.target
        # a recipe that creates its module writes it whole: one already there must be the same
        into = None if recipe.new_target else tree.current[target]
        module, new_target, hole = move_function(tree.module, tree.text, run.source, recipe, ctx.style, target,
                                                 into, carry.members, run.original)
        if recipe.new_target and run.original_target is not None and run.original_target != new_target:
            raise BadInput("target module already present with other content", target)
        refuse_new_cycle(ctx.checkout, recipe, run.source, run.original, run.status.line, tree.current[target],
                         new_target, run.outside.edges(ctx.checkout, recipe.target_module) if run.outside else ())
        files: dict[Path, str] = {target: new_target}
        originals: dict[Path, Optional[str]] = {}
        inits = new_packages(ctx.root, target) if recipe.package_inits else []
        for init in inits:
            files[init], originals[init] = "", None
        for path, (old, new) in _update_checkout(ctx.checkout, recipe, module, target, new_target, ctx.style,
                                                 {run.source, target}).items():
            files[path], originals[path] = new, old
        return Outcome(recipe.subject(2), module, files, originals,
                       messages=[f"step 2: {line}" for line in described(ctx.root, inits)],
                       carry=replace(carry, hole=hole))


def _update_checkout(checkout: Checkout, recipe: Recipe, module: cst.Module, target_path: Path, new_target: str,
                     style: Style, skip: set[Path]
                     ) -> dict[Path, tuple[str, str]]:
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
