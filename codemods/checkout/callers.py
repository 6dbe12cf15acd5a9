"""Every use of some methods of a class, anywhere in the checkout, each either a caller (its
receiver is an instance of the class, as the code says: `pysource.receivers`) or a place the
refactoring cannot update (listed, all at once).

For each `x.METHOD` in a file that spells METHOD (comments and strings are not uses):
- `self.METHOD` in the class itself: a caller (called), or the class handing its method around
  as a value (`TboAttnBackend.init_new(self._get_attention_backend)`);
- `x.METHOD` where every type `x` may have derives from the class: a caller; where none does
  and none is a base of the class: another class's method, not a use;
- where the code does not say what `x` is, but `x` is `y.ATTR` and every `ATTR` the checkout
  declares is an instance of the class (`receivers.Program.attribute_contract`): a caller, with
  the declarations it rests on as evidence (shown to the user);
- where the code does not say, but the receiver provably is no instance of the class (it is also
  used for an attribute the class and its subclasses never have, or it is only ever given values
  of other classes: `receivers.elimination`): not a use, the decision noted (`Uses.eliminated`);
- anything else may be the class's method or another's: ambiguous, listed.
Also listed: a subclass overriding METHOD, `super().METHOD` in one, `patch.object(x, "METHOD")`
where `x` may be an instance or the class, `CLASS.METHOD` reached through the class; and, apart
(`Uses.by_name`: they still find a delegation the class keeps), `getattr`/`hasattr(x, "METHOD")`. A patch target `"module.CLASS.METHOD"` (or a subclass's) is a patch to rewrite.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from codemods.core.errors import Location
from pysource.imports import PATCHERS, callee_name
from pysource.receivers import NONE, ClassObject, File, Instance, Program
from pysource.receivers.elimination import Elimination, Eliminator

BY_NAME = PATCHERS | {"getattr", "hasattr", "setattr"}


@dataclass
class Use:
    path: Path
    node: ast.Attribute  # `x.METHOD`
    method: str
    called: bool  # `x.METHOD(...)`
    receiver: str  # `x` as spelled
    in_class: Optional[str] = None  # the method of the class holding the use (`self.METHOD` in the class)
    evidence: str = ""  # how the receiver was told to be an instance of the class, when not by its type

    @property
    def line(self) -> int:
        return self.node.lineno


@dataclass
class Patch:
    """A string naming the method as a patch target (`mock.patch("m.CLASS.METHOD")`)."""

    path: Path
    node: ast.Constant
    method: str
    owner: str  # the qualified class the string names (the class or a subclass)


@dataclass
class Uses:
    callers: list[Use] = field(default_factory=list)
    values: list[Use] = field(default_factory=list)  # the class's own `self.METHOD` not called
    patches: list[Patch] = field(default_factory=list)
    conflicts: list[Location] = field(default_factory=list)
    ambiguous: list[Location] = field(default_factory=list)  # receivers that may or may not be the class's
    by_name: list[Location] = field(default_factory=list)  # `getattr`/`hasattr(x, "METHOD")`: reads that find
    # the method while the class keeps a member of that name (a delegation), else break
    notes: list[str] = field(default_factory=list)
    eliminated: list[Elimination] = field(default_factory=list)  # receivers told to be another class's


def method_uses(program: Program, owner: str, methods: list[str], skip_in_class: set[str] = frozenset(),
                skip_classes: set[str] = frozenset(), only: Optional[set[Path]] = None) -> Uses:
    """The uses of `owner`'s `methods` (owner: the qualified class name) in the whole checkout (or
    in the files `only`); `skip_in_class`: methods of the class whose bodies are not searched;
    `skip_classes`: classes (qualified) whose bodies are not searched."""
    out = Uses()
    found = program.class_def(owner)
    if found is None:
        return out
    subclasses = program.subclasses(owner)
    lineage = program.lineage(owner) or [owner]
    for f, node, stmt in program.overrides(owner, methods):
        out.conflicts.append(Location(f.path, stmt.lineno, f"{node.name} overrides {owner.rpartition('.')[2]}.{stmt.name}"))
    contracts: dict[str, tuple] = {}
    eliminator = Eliminator(program, owner)
    program.checkout.prefetch(*(method.encode() for method in methods))  # one pass over the files for them all
    files = dict.fromkeys(p for method in methods for p in program.checkout.select(
        lambda data: True, mentioning=method.encode()))  # each file once, for every method it spells
    for path in files:
        if only is not None and Path(path) not in only:
            continue
        f = program.file(path)
        if f is None:
            out.conflicts.append(Location(path, 1, f"cannot parse the file, so its uses of {', '.join(methods)} "
                                                   f"cannot be checked: fix it first"))
            continue
        _FileUses(program, f, owner, set(lineage), subclasses, set(methods), skip_in_class, out, contracts,
                  skip_classes, eliminator).run()
    root = program.checkout.package_root
    out.notes += [e.describe(lambda p: _relative(p, root)) for e in out.eliminated]
    return out


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return str(path)


class _FileUses:
    def __init__(self, program: Program, f: File, owner: str, lineage: set[str], subclasses: frozenset[str],
                 methods: set[str], skip: set[str], out: Uses, contracts: dict, skip_classes: set[str] = frozenset(),
                 eliminator: Optional[Eliminator] = None):
        self.program, self.f, self.owner, self.methods, self.skip, self.out = program, f, owner, methods, skip, out
        self.method = ""
        self.lineage, self.subclasses, self.contracts = lineage, subclasses, contracts
        self.class_name = owner.rpartition(".")[2]
        self.mine = {owner, *subclasses}
        self.skip_classes = skip_classes
        self.eliminator = eliminator

    def run(self) -> None:
        """One walk of the file's lines spelling the methods: then each candidate in source order."""
        methods = self.methods
        called, found = set(), []
        for node in self.f.nodes_spelling(methods):
            if isinstance(node, ast.Attribute):
                if node.attr in methods:
                    found.append(("attribute", node, node.attr))
            elif isinstance(node, ast.Call):
                called.add(id(node.func))
                if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value in methods \
                        and callee_name(node) in BY_NAME:
                    found.append(("by-name", node, node.args[1].value))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value:
                for m in methods:
                    if f".{m}" in node.value:
                        found.append(("patch", node, m))
        found.sort(key=lambda item: (item[1].lineno, item[1].col_offset))
        for kind, node, method in found:
            self.method = method
            if kind == "attribute":
                self._attribute(node, id(node) in called)
            elif kind == "by-name":
                self._by_name(node)
            else:
                self._patch_target(node)

    def _where(self, node: ast.AST) -> tuple[Optional[ast.AST], Optional[ast.ClassDef]]:
        return self.f.enclosing(node)

    def _attribute(self, node: ast.Attribute, called: bool) -> None:
        value, f = node.value, self.f
        fn, cls = self._where(node)
        in_owner = cls is not None and self.program.qualified(f, cls) == self.owner
        if in_owner and fn is not None and fn.name in self.skip:
            return  # moves along
        if self.skip_classes and self._inside_skipped(node):
            return
        if isinstance(value, ast.Call) and callee_name(value) == "super":
            if cls is not None and self.program.qualified(f, cls) in self.subclasses:
                self._conflict(node, f"calls super().{self.method}")
            return
        receiver = ast.unparse(value)
        types = self.program.type_of(f, value)
        evidence = ""
        if types is None and isinstance(value, ast.Attribute):
            types, evidence = self._contract(value.attr)
        verdict = self._verdict(types)
        if verdict == "ambiguous" and not evidence and self._eliminated(value):
            return
        if verdict == "other":
            return
        if verdict == "class":
            self._conflict(node, f"reaches {receiver}.{self.method} through the class")
            return
        if verdict == "ambiguous":
            self.out.ambiguous.append(Location(self.f.path, node.lineno, f"uses {receiver}.{self.method}: the code "
                                                                         f"does not say what {receiver} is, so it may "
                                                                         f"be {self.class_name}.{self.method} or "
                                                                         f"another class's"))
            return
        use = Use(f.path, node, self.method, called, receiver, fn.name if in_owner and fn is not None else None,
                  evidence)
        if in_owner and not called and _is_self(value, fn):
            self.out.values.append(use)
        else:
            self.out.callers.append(use)
            if evidence:
                self.out.notes.append(f"{f.path}:{node.lineno}: {receiver} taken as a {self.class_name}: {evidence}")

    def _eliminated(self, value: ast.expr) -> bool:
        """The receiver provably is no instance of the class (`receivers.elimination`): noted."""
        if self.eliminator is None:
            return False
        decided = self.eliminator.receiver(self.f, value)
        if decided is not None:
            self.out.eliminated.append(decided)
        return decided is not None

    def _inside_skipped(self, node: ast.AST) -> bool:
        n = self.f.parent(node)
        while n is not None:
            if isinstance(n, ast.ClassDef) and self.program.qualified(self.f, n) in self.skip_classes:
                return True
            n = self.f.parent(n)
        return False

    def _verdict(self, types) -> str:
        """"mine" (an instance of the class), "other", "class" (the class object), "ambiguous"."""
        if types is None:
            return "ambiguous"
        kinds = set()
        for t in types:
            if t == NONE:
                continue
            if isinstance(t, ClassObject) and (t.qualname in self.mine):
                kinds.add("class")
            elif isinstance(t, ClassObject):
                kinds.add("other" if t.qualname not in self.lineage else "ambiguous")
            elif isinstance(t, Instance) and t.qualname in self.mine:
                kinds.add("mine")
            elif isinstance(t, Instance) and t.qualname in self.lineage:
                kinds.add("ambiguous")  # a base of the class: may be one of its instances
            elif isinstance(t, Instance):
                kinds.add("other" if self._unrelated(t.qualname) else "ambiguous")
            else:
                kinds.add("other")  # a function, a container: no such method of the class
        if not kinds:
            return "other"
        return kinds.pop() if len(kinds) == 1 else "ambiguous"

    def _unrelated(self, qualname: str) -> bool:
        """An instance of `qualname` provably is none of the class's (its line is known, and does not
        hold the class; a class from outside the checkout is not one of them)."""
        if self.program.outside(qualname):
            return qualname not in self.lineage
        line = self.program.lineage(qualname)
        return line is not None and self.owner not in line

    def _contract(self, attr: str) -> tuple:
        if attr not in self.contracts:
            types, declared, silent = self.program.attribute_contract(attr)
            ok = types is not None and all(isinstance(t, Instance) and t.qualname in self.mine for t in types if t != NONE)
            evidence = (f"every {attr} the checkout declares is one ({len(declared)} declaration(s); "
                        f"{len(silent)} binding(s) declare no type)") if ok else ""
            self.contracts[attr] = (types if ok else None, evidence)
        return self.contracts[attr]

    def _by_name(self, node: ast.Call) -> None:
        receiver = node.args[0]
        types = self.program.type_of(self.f, receiver)
        verdict = self._verdict(types)
        if verdict == "ambiguous" and self._eliminated(receiver):
            return
        if verdict == "other":
            return
        what = f"{ast.unparse(receiver)}.{self.method} by name ({ast.unparse(node.func)})"
        if callee_name(node) in ("getattr", "hasattr"):
            self.out.by_name.append(Location(self.f.path, node.lineno, f"reads {what}"))
        else:
            self._conflict(node, f"patches {what}: patch or reach it through the component instead")

    def _patch_target(self, node: ast.Constant) -> None:
        owner, _, rest = node.value.partition(f".{self.method}")
        if rest and not rest.startswith("."):
            return
        canonical = self.program.canonical(owner) if self.program.class_def(owner) is not None else owner
        if canonical in self.mine:
            self.out.patches.append(Patch(self.f.path, node, self.method, canonical))

    def _conflict(self, node: ast.AST, why: str) -> None:
        self.out.conflicts.append(Location(self.f.path, node.lineno, why))


def _is_self(node: ast.AST, fn: Optional[ast.AST]) -> bool:
    return isinstance(node, ast.Name) and fn is not None and bool(getattr(fn, "args", None)) and fn.args.args \
        and fn.args.args[0].arg == node.id
