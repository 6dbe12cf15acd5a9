"""The names a piece of code binds and reads, and statements and their blocks (by `ast`): the
innermost statements holding a node, the statements that follow one and use what it bound.

Which names code reads from outside itself is the compiler's own question, answered by Python's
`symtable` (`scope_names`): a name bound anywhere in a scope (an assignment, `for`/`with`/`except
... as`, a walrus, an import, a nested `def` or `class`, a comprehension's target in its own
scope) is local to that scope, never a module global. `free_names` (the codemods: what moved code
needs from its module) and `global_reads` (the harness: the globals code reads when it runs) are
that one analysis.
"""

from __future__ import annotations

import ast
import builtins
import copy
import symtable
import textwrap
from typing import Iterable

BUILTINS = frozenset(dir(builtins))


def scope_names(code: str) -> tuple[set[str], set[str]]:
    """(reads, binds) of module-level `code`: the names it reads from the module's namespace (or
    builtins), in its own statements or where a nested scope does not bind them, and the names it
    binds at module level. A name inside a string annotation is text, not a read."""
    top = symtable.symtable(code, "<code>", "exec")
    binds = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    reads: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        reads |= {s.get_name() for s in table.get_symbols()
                  if s.is_referenced() and (table is top or s.is_global())}
        tables += table.get_children()
    return reads, binds


def free_names(code: str) -> set[str]:
    """Names module-level `code` reads that nothing in it binds and that are not builtins: what it
    needs from the module it runs in."""
    reads, binds = scope_names(code)
    return reads - binds - BUILTINS


def global_reads(node: ast.AST, local: Iterable[str] = ()) -> set[str]:
    """The module globals `node` reads when it runs, builtins excluded: a function's or lambda's body
    when called (its parameters and what it binds local; annotations, decorators and defaults are
    evaluated where it is defined, so not here; its own name where it calls itself), a class's body
    as it is defined, an expression, or statements as the body of a function taking `local`."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        params += [a.arg for a in (args.vararg, args.kwarg) if a]
        body = [ast.Return(node.body)] if isinstance(node, ast.Lambda) else node.body
        return _called(body, [*params, *local])
    if isinstance(node, ast.ClassDef):
        reads, _ = scope_names(_code(node.body))
        return reads - BUILTINS - set(local)
    if isinstance(node, ast.expr):
        return _called([ast.Expr(node)], local)
    if isinstance(node, ast.Module):
        return _called(node.body, local)
    return _called([node], local)


def _called(body: list[ast.stmt], params: Iterable[str]) -> set[str]:
    """Globals read by `body` run as the body of a function taking `params`."""
    return outer_reads(body, params) - BUILTINS


def function_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names local to `fn`'s own scope: its parameters and what its body binds."""
    table = symtable.symtable(ast.unparse(fn), "<code>", "exec").get_children()[0]
    return {s.get_name() for s in table.get_symbols() if s.is_local()}


def outer_reads(body: list[ast.stmt], params: Iterable[str] = ()) -> set[str]:
    """The names `body`, run as the body of a function taking `params`, reads from outside
    itself (the enclosing scopes, the module, builtins)."""
    params = list(dict.fromkeys(params))
    asynchronous = any(isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith)) for s in body for n in ast.walk(s))
    header = f"{'async ' if asynchronous else ''}def __body__({', '.join(params)}):\n"
    code = header + textwrap.indent(_code(body, without_annotations=True) or "pass", "    ") + "\n"
    table = symtable.symtable(code, "<code>", "exec").get_children()[0]
    reads: set[str] = set()
    tables = [table]
    while tables:
        current = tables.pop()
        reads |= {s.get_name() for s in current.get_symbols() if s.is_referenced() and s.is_global()}
        tables += current.get_children()
    return reads


class _NoAnnotations(ast.NodeTransformer):
    """Annotations are never evaluated by a call (parameters' and a local's `x: T`)."""

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        node.returns = None
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
        self.generic_visit(node)
        node.annotation = ast.Constant(0)
        return node


def _code(body: list[ast.stmt], without_annotations: bool = False) -> str:
    if without_annotations:
        body = [_NoAnnotations().visit(copy.deepcopy(s)) for s in body]
    return "\n".join(ast.unparse(s) for s in body)


def using_bound_locals(statement: ast.stmt, after: list[ast.stmt]) -> list[ast.stmt]:
    """The statements after `statement` that read a local it (or one of them) bound."""
    run, bound = [], stored_names(statement)
    for nxt in after:
        if not (loaded_names(nxt) & bound):
            break
        run.append(nxt)
        bound |= stored_names(nxt)
    return run


def stored_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def child_blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    blocks = [getattr(stmt, f) for f in ("body", "orelse", "finalbody") if getattr(stmt, f, None)]
    blocks += [h.body for h in getattr(stmt, "handlers", [])]
    blocks += [c.body for c in getattr(stmt, "cases", [])]
    return blocks


def innermost(body: list[ast.stmt], is_call):
    """(block, index) of every innermost statement whose code contains a node `is_call` accepts."""
    for i, stmt in enumerate(body):
        if not any(is_call(n) for n in ast.walk(stmt)):
            continue
        inner = [found for block in child_blocks(stmt) for found in innermost(block, is_call)]
        yield from inner or [(body, i)]


def attribute_chain(node: ast.AST, root: str | None = "self") -> str | None:
    """`self.a.b` -> "self.a.b" for an attribute chain on the name `root` (any name: None), else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and parts and (root is None or node.id == root):
        return ".".join([node.id, *reversed(parts)])
    return None


def is_attribute_of(node: ast.AST, root: str | None) -> bool:
    """`self.x` (one attribute of the name `root`)."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == root


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def read_before_bound(statements: list[ast.stmt]) -> set[str]:
    """Names the statements read, in their own scope, where they are not bound yet on every path:
    the enclosing method's values (`total += self.part()` reads `total` before binding it; so does
    `x = f(x)`; and a name bound only inside an `if` and read after it). Run as a function of their
    own without them, the read would raise UnboundLocalError where the method never did."""
    bound: set[str] = set()
    out: set[str] = set()
    for stmt in statements:
        for node in _own_scope(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound:
                out.add(node.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id not in bound:
                out.add(node.target.id)
        bound |= _definitely_bound(stmt)
    return out


def own_returns(body: list[ast.stmt]):
    """The `return` statements of the statements' own code, not of functions, lambdas or classes
    defined in them (each yielded before its children are looked at: it may be changed in place)."""
    todo = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.Return):
            yield n
        todo.extend(ast.iter_child_nodes(n))


def _own_scope(node: ast.AST):
    """`node` and what it holds in its own scope, in evaluation order for the simple statements
    that matter here (an assignment's value before its targets)."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        order = [node.value] if node.value is not None else []
        order += node.targets if isinstance(node, ast.Assign) else [node.target]
        yield node
        for child in order:
            yield from _own_scope(child)
        return
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _SCOPES):
            # a nested scope's defaults and decorators run here; its body does not
            for sub in ast.iter_child_nodes(child):
                if isinstance(sub, ast.arguments):
                    for d in [*sub.defaults, *(k for k in sub.kw_defaults if k is not None)]:
                        yield from _own_scope(d)
            for d in getattr(child, "decorator_list", []):
                yield from _own_scope(d)
            if isinstance(child, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                yield from _own_scope(child.generators[0].iter)  # evaluated in the enclosing scope
            continue
        yield from _own_scope(child)


def _definitely_bound(stmt: ast.stmt) -> set[str]:
    """The names a statement binds on every path through it that continues to the next one."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            return set()
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, ast.If):
        body = set().union(*(_definitely_bound(s) for s in stmt.body))
        orelse = set().union(*(_definitely_bound(s) for s in stmt.orelse)) if stmt.orelse else set()
        return body & orelse
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        names = {n.id for item in stmt.items if item.optional_vars is not None
                 for n in ast.walk(item.optional_vars) if isinstance(n, ast.Name)}
        return names | set().union(*(_definitely_bound(s) for s in stmt.body))
    return set()


def attribute_store(stmt: ast.stmt, root: str = "self") -> tuple[str, ast.expr] | None:
    """(attribute, value) of `root.attribute = value` (annotated or not), else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        target, value = stmt.target, stmt.value
    else:
        return None
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == root:
        return target.attr, value
    return None
