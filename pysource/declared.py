"""What the code declares a value to be: an annotation read as the shape of the values it admits.

The harness gives the code under test values of the types its source writes down before it
learns anything from how the code uses them (issue 30, "types first"): a parameter annotated
`Dict[str, Any]` is offered dicts, `Optional[List[int]]` lists of ints and None, a dataclass
field `tp_size: int = 1` starts at 1, `mode: Literal["a", "b"]` is "a" or "b".

A shape is one of the small frozen types below; `None` wherever the code says nothing a value
could be built from (`Any`, `Callable`, a class from outside the checkout, a `TypeVar`).
Declarations are read where the code makes them:
- a parameter's annotation, its default None making it Optional (`parameter`);
- a class's attribute (`attribute`), in the first class of its lineage that declares it: a
  class-level `NAME: T [= default]` (dataclass and pydantic fields), `self.NAME: T = ...` in a
  method, or `self.NAME = p` where `p` is a parameter of that method annotated `T` and never
  rebound there (`__init__(self, tp_size: int)`); several declarations in one class must agree.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional, Union

from pysource import parsing
from pysource.receivers import File, Instance, Program
from pysource.receivers.syntax import head_name

NO_DEFAULT = object()  # a declaration without a literal default

SCALARS = {"int", "float", "str", "bool", "bytes"}
OPTIONAL = {"Optional"}
UNIONS = {"Union"}
LITERALS = {"Literal"}
WRAPPERS = {"Annotated", "ClassVar", "Final", "InitVar", "Required", "NotRequired"}
LISTS = {"List", "list", "Sequence", "MutableSequence", "Iterable", "Collection", "Deque", "deque"}
SETS = {"Set", "set", "FrozenSet", "frozenset", "AbstractSet", "MutableSet"}
TUPLES = {"Tuple", "tuple"}
MAPPINGS = {"Dict", "dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict"}


@dataclass(frozen=True)
class Scalar:
    name: str  # int, float, str, bool, bytes


@dataclass(frozen=True)
class NoneValue:
    pass


@dataclass(frozen=True)
class LiteralOf:
    values: tuple


@dataclass(frozen=True)
class ListOf:
    item: "Shape"
    kind: str = "list"  # list, set


@dataclass(frozen=True)
class TupleOf:
    items: tuple  # the shape of each item of a fixed-length tuple


@dataclass(frozen=True)
class DictOf:
    key: "Shape"
    value: "Shape"


@dataclass(frozen=True)
class InstanceOf:
    qualname: str  # a class of the checkout: its attributes are declared in turn


@dataclass(frozen=True)
class OneOf:
    arms: tuple


Shape = Optional[Union[Scalar, NoneValue, LiteralOf, ListOf, TupleOf, DictOf, InstanceOf, OneOf]]
NONE = NoneValue()


@dataclass(frozen=True)
class Declared:
    shape: Shape
    default: object = NO_DEFAULT  # the literal default a field or parameter declares
    where: str = ""  # file:line of the declaration (what a report may cite)


def one_of(arms) -> Shape:
    """The union of `arms` (flattened, in order, without repeats); None when one of them is unknown."""
    out: list = []
    for arm in arms:
        if arm is None:
            return None
        for a in arm.arms if isinstance(arm, OneOf) else (arm,):
            if a not in out:
                out.append(a)
    return out[0] if len(out) == 1 else OneOf(tuple(out))


def optional(shape: Shape) -> Shape:
    return None if shape is None else one_of([shape, NONE])


TYPING_NAMES = OPTIONAL | UNIONS | LITERALS | WRAPPERS | LISTS | SETS | TUPLES | MAPPINGS


def _typing_name(program: Program, f: File, node: ast.AST, depth: int = 0) -> str:
    """The typing name `node` spells, an alias followed: `A[int, ...]` where `A = Annotated` (in
    the file, or in the module it is imported from: sglang's ServerArgs declares every field so)."""
    head = head_name(node)
    if head in TYPING_NAMES or not isinstance(node, ast.Name) or depth > 4:
        return head
    qualname = f.names.qualify(node)
    module, name = (qualname.rpartition(".")[0], qualname.rpartition(".")[2]) if qualname else (f.module, node.id)
    path = program.module_path(module) if module else None
    other = program.file(path) if path is not None and path.is_file() else None
    if other is None:
        return head
    values = [s.value for s in other.tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
              and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name]
    if len(values) != 1 or not isinstance(values[0], (ast.Name, ast.Attribute)):
        return head
    return _typing_name(program, other, values[0], depth + 1)


def shape_of(program: Program, f: File, node: Optional[ast.AST], depth: int = 0) -> Shape:
    """The shape an annotation names (module docstring)."""
    if node is None or depth > 8:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return NONE
        if isinstance(node.value, str):
            try:
                return shape_of(program, f, parsing.expression(node.value).body, depth + 1)
            except SyntaxError:
                return None
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return one_of([shape_of(program, f, node.left, depth + 1), shape_of(program, f, node.right, depth + 1)])
    if isinstance(node, ast.Subscript):
        head = _typing_name(program, f, node.value)
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        inner = [shape_of(program, f, a, depth + 1) for a in args] if head not in LITERALS else []
        if head in OPTIONAL:
            return optional(inner[0])
        if head in UNIONS:
            return one_of(inner)
        if head in LITERALS:
            if all(isinstance(a, ast.Constant) for a in args):
                return LiteralOf(tuple(a.value for a in args))
            return None
        if head in WRAPPERS:
            return inner[0]
        if head in LISTS:
            return ListOf(inner[0])
        if head in SETS:
            return ListOf(inner[0], "set")
        if head in TUPLES:
            if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
                return ListOf(inner[0], "tuple")
            return TupleOf(tuple(inner))
        if head in MAPPINGS and len(inner) == 2:
            return DictOf(inner[0], inner[1])
        return None
    if isinstance(node, ast.Name) and node.id == "None":
        return NONE
    if isinstance(node, (ast.Name, ast.Attribute)):
        head = head_name(node)
        found = program.annotation(f, node)
        if found is None or len(found) != 1:
            return None
        (instance,) = found
        if not isinstance(instance, Instance):
            return None
        qualname = instance.qualname
        if qualname.startswith("builtins."):
            name = qualname.removeprefix("builtins.")
            if name in SCALARS:
                return Scalar(name)
            if name in ("list", "tuple", "set", "frozenset"):
                return ListOf(None, "set" if name in SETS else "tuple" if name == "tuple" else "list")
            if name == "dict":
                return DictOf(None, None)
            return None
        if head in LISTS | SETS | TUPLES | MAPPINGS:  # a bare typing name (`List`)
            return None
        return InstanceOf(qualname) if not program.outside(qualname) else None
    return None


def _literal(node: Optional[ast.AST]) -> object:
    """The value of a literal default (`1`, `-1`, `"auto"`, `None`, `True`), else NO_DEFAULT."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, (bytes, type(Ellipsis))):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) in (int, float):
        return -node.operand.value
    return NO_DEFAULT


def _with_default(shape: Shape, default: object, where: str) -> Declared:
    """A declaration whose default None admits None whatever the annotation says (`x: int = None`)."""
    if default is None and shape is not None:
        shape = optional(shape)
    return Declared(shape, default, where)


def parameter(program: Program, f: File, fn: ast.AST, name: str) -> Optional[Declared]:
    """What the function `fn` (of file `f`) declares its parameter `name` to be."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
    for arg, default in pairs:
        if arg.arg == name and arg.annotation is not None:
            shape = shape_of(program, f, arg.annotation)
            if shape is None:
                return None
            return _with_default(shape, _literal(default) if default is not None else NO_DEFAULT,
                                 f"{f.path}:{arg.lineno}")
    return None


def attribute(program: Program, qualname: str, attr: str) -> Optional[Declared]:
    """What the class `qualname` (or the first class of its lineage that declares it) declares
    its attribute `attr` to be; None when no class declares it, or one's declarations disagree."""
    for q in program.lineage(qualname) or ():
        got = program.class_def(q)
        if got is None:
            continue
        found = _declarations(program, *got, attr)
        if found:
            shapes = {d.shape for d in found}
            return found[0] if len(shapes) == 1 and None not in shapes else None
    return None


def _declarations(program: Program, f: File, cls: ast.ClassDef, attr: str) -> list[Declared]:
    """The class's declarations of `attr`: its annotated ones, and, when every other write assigns
    a parameter of the writing method, those parameters' (none when one assigns anything else)."""
    found, from_parameters = [], []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            default = _literal(stmt.value) if stmt.value is not None else NO_DEFAULT
            found.append(_with_default(shape_of(program, f, stmt.annotation), default, f"{f.path}:{stmt.lineno}"))
    for fn, stmt, target in program.writes_of(f, cls, attr):
        if isinstance(stmt, ast.AnnAssign):
            found.append(Declared(shape_of(program, f, stmt.annotation), NO_DEFAULT, f"{f.path}:{stmt.lineno}"))
            continue
        declared = None
        if isinstance(stmt, ast.Assign) and stmt.targets == [target] and isinstance(stmt.value, ast.Name) \
                and not _rebinds(fn, stmt.value.id):
            declared = parameter(program, f, fn, stmt.value.id)
        from_parameters.append(None if declared is None else Declared(declared.shape, NO_DEFAULT, declared.where))
    if found or None in from_parameters:
        return found
    return from_parameters


def _rebinds(fn: ast.AST, name: str) -> bool:
    """Whether `fn` binds `name` other than as its parameter."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
               or isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in ast.walk(fn))
