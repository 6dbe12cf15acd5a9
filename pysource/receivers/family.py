"""What an instance of a class may have: every attribute its class, its bases, its subclasses and
their bases define or assign, and where other code may set one on it.

`Family.may_have(attr)` answers for an instance typed as the class (one of its subclasses
included). Its answer is "anything" (`open` says why) where the code can give an instance any
attribute: a `__getattr__` or `__getattribute__`, `setattr(self, NAME, ...)` or `self.__dict__`
with a name known only at run time, a base from outside the checkout (other than `object`, `ABC`,
`Generic`, `Protocol`), a class decorator or metaclass this module does not know, a line of
bases that cannot be followed. `written_outside` finds where code other than the family's own
methods sets the attribute on a value that may be one of its instances (`x.attr = v`,
`setattr(x, "attr", v)`, `patch.object(x, "attr")`): such an attribute is no evidence either.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from pysource.imports import PATCHERS, callee_name
from pysource.receivers.file import File
from pysource.receivers.model import NONE, ClassObject, Instance, Types

SAFE_OUTSIDE_BASES = {"object", "builtins.object", "abc.ABC", "typing.Generic", "typing.Protocol"}
SAFE_DECORATORS = {"dataclass", "dataclasses.dataclass", "total_ordering", "functools.total_ordering", "final",
                   "typing.final", "runtime_checkable", "typing.runtime_checkable"}
SAFE_METACLASSES = {"ABCMeta", "abc.ABCMeta"}
DYNAMIC = {"__getattr__", "__getattribute__"}


@dataclass(frozen=True, slots=True)
class Family:
    """The classes an instance typed `owner` may be an instance of (`mine`: the class and its
    subclasses), every class whose members such an instance has (`classes`: theirs and their
    bases'), and the attributes those define or assign (`names`); `open`: why it may have any."""

    owner: str
    mine: frozenset[str]
    classes: frozenset[str]
    names: frozenset[str]
    open: Optional[str] = None

    def may_have(self, attr: str) -> bool:
        return self.open is not None or attr in self.names or attr.startswith("__")

    @property
    def name(self) -> str:
        return self.owner.rpartition(".")[2]


def family(program, owner: str) -> Family:
    """The `Family` of class `owner` (qualified), computed once per program."""
    cache = program.memo.families
    if owner not in cache:
        cache[owner] = _family(program, owner)
    return cache[owner]


def _family(program, owner: str) -> Family:
    mine = frozenset([owner, *program.subclasses(owner)])
    classes: set[str] = set()
    for q in sorted(mine):
        line = program.lineage(q)
        if line is None:
            return Family(owner, mine, frozenset(mine), frozenset(), f"the bases of {q} cannot be followed")
        classes.update(line)
    names: set[str] = set()
    for q in sorted(classes):
        if program.outside(q):
            if q not in SAFE_OUTSIDE_BASES:
                return Family(owner, mine, frozenset(classes), frozenset(), f"{q}, from outside the checkout, is "
                                                                            f"among its classes")
            continue
        got = program.class_def(q)
        if got is None:
            return Family(owner, mine, frozenset(classes), frozenset(), f"{q} cannot be found")
        f, cls = got
        why = _class_names(program, f, cls, names)
        if why is not None:
            return Family(owner, mine, frozenset(classes), frozenset(), f"{cls.name} {why}")
    return Family(owner, mine, frozenset(classes), frozenset(names))


def _class_names(program, f: File, cls: ast.ClassDef, names: set[str]) -> Optional[str]:
    """Add what class `cls` binds to `names`; why it may bind anything, if it may."""
    for d in cls.decorator_list:
        spelled = ast.unparse(d.func if isinstance(d, ast.Call) else d)
        if spelled not in SAFE_DECORATORS:
            return f"is decorated with @{spelled}"
    for k in cls.keywords:
        if k.arg == "metaclass" and ast.unparse(k.value) not in SAFE_METACLASSES:
            return f"has the metaclass {ast.unparse(k.value)}"
    for n in _class_level(cls.body):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if n.name in DYNAMIC:
                return f"defines {n.name}"
            names.add(n.name)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in n.names)
    names.update(program.self_writes(f, cls))
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.args.args:
            continue
        me = fn.args.args[0].arg
        for n in ast.walk(fn):
            if isinstance(n, ast.Attribute) and n.attr == "__dict__" and isinstance(n.value, ast.Name) \
                    and n.value.id == me:
                return f"reaches {me}.__dict__ ({f.path.name}:{n.lineno})"
            if isinstance(n, ast.Call) and callee_name(n) in ("setattr", "vars") and n.args \
                    and isinstance(n.args[0], ast.Name) and n.args[0].id == me:
                if callee_name(n) == "vars":
                    return f"reaches vars({me}) ({f.path.name}:{n.lineno})"
                if len(n.args) > 1 and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
                    names.add(n.args[1].value)
                else:
                    return f"sets attributes by a name known only at run time ({f.path.name}:{n.lineno})"
    return None


def _class_level(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a class body, not inside its functions or nested classes (which are yielded)."""
    todo = list(body)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(n))


def unrelated(program, classes: frozenset[str], mine: frozenset[str], types: Types) -> bool:
    """Whether a value of `types` is provably no instance of `mine` (classes the family's
    instances may be: `classes` holds their bases too): None, a function, a module, a container,
    a class object, or an instance of a class whose line is known and holds none of them."""
    if types is None:
        return False
    for t in types:
        if t == NONE:
            continue
        if isinstance(t, ClassObject):
            if t.qualname in mine:
                return False
        elif isinstance(t, Instance):
            if t.qualname in classes:
                return False  # one of them, or a base of one: it may be
            if program.outside(t.qualname):
                continue
            line = program.lineage(t.qualname)
            if line is None or mine & set(line):
                return False
    return True


def written_outside(program, fam: Family, attr: str, classes: Optional[frozenset[str]] = None
                    ) -> Optional[tuple[Path, int]]:
    """The first place (file, line) where code sets `attr` on a value that may be an instance of
    `classes` (default: the family's `mine`) other than through its own methods' `self`: `x.attr
    = v`, `del x.attr`, `setattr(x, "attr", v)`, `patch.object(x, "attr")`, `replace(x,
    attr=v)`; None when there is none."""
    mine = fam.mine if classes is None else classes
    around = set(fam.classes) if classes is None else set(classes)
    for q in list(around):
        around.update(program.lineage(q) or ())
    key = (mine, attr)
    cache = program.memo.written_outside
    if key in cache:
        return cache[key]
    found = None
    for path in program.checkout.select(lambda data: _may_set(data, attr.encode()), mentioning=attr.encode()):
        f = program.file(path)
        if f is None:
            found = (Path(path), 1)
            break
        for n in f.nodes_spelling([attr]):
            receiver = None
            if isinstance(n, ast.Attribute) and n.attr == attr and not isinstance(n.ctx, ast.Load):
                receiver = n.value
            elif isinstance(n, ast.Call) and callee_name(n) in PATCHERS and len(n.args) > 1 \
                    and isinstance(n.args[1], ast.Constant) and n.args[1].value == attr:
                receiver = n.args[0]
            elif isinstance(n, ast.Call) and callee_name(n) == "replace" and n.args \
                    and any(k.arg == attr for k in n.keywords):
                receiver = n.args[0]
            if receiver is None or _own_self(program, f, n, receiver, around):
                continue
            if not unrelated(program, frozenset(around), frozenset(mine), program.type_of(f, receiver)):
                found = (Path(path), n.lineno)
                break
        if found is not None:
            break
    cache[key] = found
    return found


def _may_set(data: bytes, attr: bytes) -> bool:
    """Whether a file's text may set `attr` other than as its classes' own `self.attr = v` (a
    cheap test on the bytes before the file is parsed): a store through another receiver, a
    `del`, the name quoted (`setattr`, `patch.object`), `replace(x, attr=...)`, or a method whose
    `self` is annotated (a mixin's `def f(self: Other)`)."""
    word = re.escape(attr)
    annotated_self = None
    for m in re.finditer(rb"\.\s*" + word + rb"\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)", data):
        if data[max(0, m.start() - 4):m.start()] != b"self" or m.start() > 4 and _word_byte(data[m.start() - 5]):
            return True
        if annotated_self is None:
            annotated_self = re.search(rb"\bself\s*:", data) is not None
        if annotated_self:
            return True
    return re.search(rb"[\"']" + word + rb"[\"']|\bdel\b[^\n]*\." + word + rb"\b", data) is not None \
        or b"replace(" in data and re.search(rb"\b" + word + rb"\s*=(?!=)", data) is not None


def _word_byte(b: int) -> bool:
    return chr(b).isalnum() or b == ord("_")


def _own_self(program, f: File, node: ast.AST, receiver: ast.AST, around: set[str]) -> bool:
    """`receiver` is the first parameter of the method holding `node`, whose class is one of
    `around` (its own writes: counted with the class) or unrelated to them (another class's own
    attribute)."""
    if not isinstance(receiver, ast.Name):
        return False
    fn, cls = f.enclosing(node)
    while fn is not None and cls is None and isinstance(fn, ast.Lambda):
        fn, cls = f.enclosing(fn)
    if fn is None or cls is None or isinstance(fn, ast.Lambda) or not fn.args.args \
            or fn.args.args[0].arg != receiver.id or fn.args.args[0].annotation is not None:
        return False
    q = program.qualified(f, cls)
    if q in around:
        return True
    line = program.lineage(q)  # `around` holds the bases of every class of the family: none derives from `q`
    return line is not None and not (around & set(line))
