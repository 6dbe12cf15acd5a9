"""The types an annotation names: `T`, `Optional[T]`, `Union[...]`, `T | None`, `"T"`, `Type[T]`
(the class), `List[T]` and `Dict[K, T]` (containers of T), `Tuple[A, B]`."""

from __future__ import annotations

import ast
import builtins
from typing import Optional

from pysource import parsing
from pysource.receivers.file import File
from pysource.receivers.model import NONE, ClassObject, FixedTuple, Instance, Sequence, Types, union
from pysource.receivers.syntax import head_name, local_classes

OPTIONAL = {"Optional"}
UNIONS = {"Union"}
CLASS_OF = {"Type", "type"}
SEQUENCES = {"List", "list", "Sequence", "Tuple", "tuple", "Iterable", "Set", "set", "FrozenSet", "frozenset",
             "Deque", "deque", "MutableSequence", "Iterator", "Collection"}
MAPPINGS = {"Dict", "dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict"}
WRAPPERS = {"Annotated", "ClassVar", "Final", "InitVar"}
UNKNOWN_NAMES = {"Any", "object", "TypeVar", "Callable", "Self"}


def annotation(program, f: File, node: Optional[ast.AST]) -> Types:
    """The types an annotation names (`pysource.receivers`); None when it names nothing useful."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return frozenset([NONE])
        if isinstance(node.value, str):
            try:
                inner = parsing.expression(node.value).body
            except SyntaxError:
                return None
            return annotation(program, f, inner)
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return union([annotation(program, f, node.left), annotation(program, f, node.right)])
    if isinstance(node, ast.Subscript):
        head = head_name(node.value)
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head in OPTIONAL:
            return union([annotation(program, f, args[0]), frozenset([NONE])])
        if head in UNIONS:
            return union(annotation(program, f, a) for a in args)
        if head in WRAPPERS:
            return annotation(program, f, args[0])
        if head in CLASS_OF:
            inner = annotation(program, f, args[0])
            if inner is None:
                return None
            return frozenset(ClassObject(t.qualname) if isinstance(t, Instance) else t for t in inner)
        if head in ("Tuple", "tuple") and not any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in args):
            return frozenset([FixedTuple(tuple(annotation(program, f, a) for a in args))])
        if head in SEQUENCES:
            items = [a for a in args if not (isinstance(a, ast.Constant) and a.value is Ellipsis)]
            return frozenset([Sequence(union(annotation(program, f, a) for a in items) if items else None)])
        if head in MAPPINGS:
            return frozenset([Sequence(annotation(program, f, args[-1]))])
        return annotation(program, f, node.value)
    if isinstance(node, (ast.Name, ast.Attribute)):
        head = head_name(node)
        if head in UNKNOWN_NAMES:
            return None
        if isinstance(node, ast.Name) and node.id == "None":
            return frozenset([NONE])
        q = f.names.qualify(node)
        if q is None and isinstance(node, ast.Name):
            if node.id in local_classes(f.tree):
                q = f"{f.module}.{node.id}"
            elif hasattr(builtins, node.id) and node.id not in f.names.bound_otherwise:
                return frozenset([Instance(f"builtins.{node.id}")])
        if q is None:
            return None
        if q.split(".")[0] in ("typing", "typing_extensions"):
            return None
        if program.outside(q):
            return frozenset([Instance(q)])
        return frozenset([Instance(program.canonical(q))]) if program.class_def(q) is not None else None
    return None


def uninformative(node: ast.AST) -> bool:
    """`-> Any`, `-> Type`, `-> object`: an annotation that says nothing a caller could use."""
    return head_name(node) in UNKNOWN_NAMES | CLASS_OF if isinstance(node, (ast.Name, ast.Attribute)) else False
