"""What a name is: a parameter (`self` an instance of its class), a local or global variable by
what binds it, an import (a class, a module, another module's global), a builtin class."""

from __future__ import annotations

import ast
import builtins

from pysource.receivers.annotations import annotation
from pysource.receivers.assignments import (Annotation, Binding, Definition, LocalImport, Unpacked, Value,
                                            assignments)
from pysource.receivers.file import File
from pysource.receivers.model import ClassObject, Function, Instance, Module, Types, element, union
from pysource.receivers.syntax import decorated

# builtin classes whose call gives (a proxy of) its argument's class, not an instance of the builtin
CLASS_OF_ITS_ARGUMENT = {"type", "super"}


def name_type(program, f: File, node: ast.Name, depth: int) -> Types:
    fn, cls = f.enclosing(node)
    name = node.id
    while fn is not None:
        args = fn.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if cls is not None and params and params[0].arg == name and not decorated(fn, "staticmethod"):
            declared = annotation(program, f, params[0].annotation) if params[0].annotation is not None else None
            if declared:  # a mixin's `def loop(self: Scheduler)`: the class it is written for
                return declared
            if decorated(fn, "classmethod"):
                return frozenset([ClassObject(program.qualified(f, cls))])
            return frozenset([Instance(program.qualified(f, cls))])
        for p in params:
            if p.arg == name:
                return annotation(program, f, p.annotation) if p.annotation is not None else None
        if args.vararg is not None and args.vararg.arg == name or args.kwarg is not None and args.kwarg.arg == name:
            return None
        if not isinstance(fn, ast.Lambda):
            found = assignments(fn.body, name)
            if found is not None:
                return union(_assigned_type(program, f, name, v, depth) for v in found)
        fn, cls = f.enclosing(fn)
    return global_type(program, f, name, depth)


def global_type(program, f: File, name: str, depth: int) -> Types:
    q = f.names.qualify(ast.Name(name, ast.Load()))
    if q is not None:
        return _imported_type(program, f, name, q, depth)
    if name in f.names.imported:
        return None
    if isinstance(getattr(builtins, name, None), type) and name not in CLASS_OF_ITS_ARGUMENT \
            and name not in f.names.bound_otherwise:
        return frozenset([ClassObject(f"builtins.{name}")])  # `set()`: nothing in the file rebinds it
    defs = [s for s in f.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and s.name == name]
    if defs:
        if len(defs) == 1 and isinstance(defs[0], ast.ClassDef):
            return frozenset([ClassObject(f"{f.module}.{name}")])
        if len(defs) == 1:
            return frozenset([Function(f.path, defs[0], False)])
        return None
    found = assignments(f.tree.body, name)
    values = list(found or [])
    for n in declaring_global(f, name):  # `global NAME` then NAME = ... in a function
        more = assignments(n.body, name)
        if more is None:
            continue
        values += more
    if not values:
        return None
    return union(_assigned_type(program, f, name, v, depth) for v in values)


def _imported_type(program, f: File, name: str, q: str, depth: int) -> Types:
    """What `name` of file `f` is, bound by an import to the dotted name `q`: a class, a global of
    another module of the checkout, a class from outside it (a capitalised name), or a module
    (every statement binding `name` is an `import X`)."""
    binders = f.names.binders.get(name)
    if binders and all(isinstance(s, ast.Import) for s in binders) and name not in f.names.bound_otherwise:
        return frozenset([Module(q)])
    if program.class_def(q) is not None:
        return frozenset([ClassObject(program.canonical(q))])
    module, _, attr = q.rpartition(".")
    path = program.module_path(module) if module else None
    if path is None:
        if program.outside(q) and name not in f.names.bound_otherwise:
            return frozenset([ClassObject(q)]) if attr[:1].isupper() else None
        return None
    if path == f.path:
        return None
    other = program.file(path)
    return None if other is None else global_type(program, other, attr, depth)


def _assigned_type(program, f: File, name: str, binding: Binding, depth: int) -> Types:
    """The type one binding of `name` (found by `assignments`) gives it, typed where it is."""
    if isinstance(binding, LocalImport):  # what the module-level import would give
        q = f.names.qualify(ast.Name(name, ast.Load()))
        return None if q is None else _imported_type(program, f, name, q, depth)
    if isinstance(binding, Annotation):
        return annotation(program, f, binding.annotation)
    if isinstance(binding, Definition):
        if isinstance(binding.node, ast.ClassDef):
            return None  # a class defined in a function: not one the checkout can name
        return frozenset([Function(f.path, binding.node, False)])
    if isinstance(binding, Unpacked):
        return element(program.type_of(f, binding.value, depth), binding.index)
    if isinstance(binding, Value):
        return program.type_of(f, binding.value, depth)
    return None


def declaring_global(f: File, name: str) -> list[ast.AST]:
    """The functions holding a `global NAME` statement, at any depth (an outer function too)."""
    found = list(f.nodes_spelling([name]))
    lines = [n.lineno for n in found if isinstance(n, ast.Global) and name in n.names]
    return [n for n in found if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(n.lineno <= line <= n.end_lineno for line in lines)]
