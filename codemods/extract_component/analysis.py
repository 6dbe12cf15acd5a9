"""What the component is, inferred from the owner class (Python's `ast`), or why it cannot be.

Read off the moved methods' uses of `self` (`uses.self_uses`):
- an owner method they call that is private (`_name`), defined in the class itself and used
  nowhere else (no other method of the class, no other file, no subclass) moves along (a helper);
- an attribute only they use (and `__init__` initialises, once, with a value a class body can
  hold as a default) is moved state; `--state X` names one that other owner code reads too
  (it then reads it through the component); one that code which stays writes is refused;
- a chain they read is a getter when the chain, or a chain it starts with, is assigned after
  the component is built: by any method of the owner, its bases or subclasses other than
  `__init__` and the methods that run only while it runs (any of them may run later), by
  `__init__` after the building point (also through such a method it calls there), or from
  outside through a receiver the code says is an owner (`pysource.receivers`); otherwise the
  chain's first attribute is a value field; a property is always a getter;
- an owner method they call (or hand around) that stays is a callback field;
- with `--pass-owner NAME` the owner itself is the field NAME, and everything else they read,
  write or call on `self` goes through it.
The owner builds the component at the first top-level statement of `__init__` before which every
value field's source is assigned on every path (`self.X = ...`, or a method called there that
does so), and before any statement that may use the component (calls a moved method, directly
or through other owner methods, or touches moved state); where moved state was initialised, if
that place qualifies, the building replaces that initialisation.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Optional

from codemods.core.errors import Conflicts, Location, Refusal
from codemods.extract_component.design import Design, Field
from codemods.extract_component.models import Inferred, Owner, Request
from codemods.extract_component.uses import SelfUse, self_name, self_uses, written_chains
from codemods.syntax.annotations import attribute_types
from pysource.imports import callee_name
from pysource.init_only import calls_on_self, run_only_in_init
from pysource.receivers import Program

SIMPLE_DEFAULTS = {"dict": "dict", "list": "list", "set": "set", "OrderedDict": None, "defaultdict": None}


def infer(owner: Owner, request: Request, program: Program) -> Inferred:
    """The component's design and where the owner builds it; `Refusal`/`Conflicts` otherwise."""
    problems: list[Location] = []
    notes: list[str] = []
    path = owner.path

    def refuse(line: int, why: str) -> None:
        problems.append(Location(path, line, why))

    moved = _moved_methods(owner, request, refuse)
    if problems:
        raise Conflicts(problems)
    helpers = _helpers(owner, moved, program)
    moved += helpers
    uses: dict[str, list[SelfUse]] = {}
    for name in moved:
        fn = owner.method(name)
        found, special = self_uses(fn)
        uses[name] = found
        for s in special:
            if s.what == "super":
                refuse(s.line, f"{request.class_name}.{name} calls super(): the component would have another base")
            elif s.what == "by-name" and not (request.pass_owner and _literal_name(s.node)):
                what = (f"reaches self.{_literal_name(s.node)} by name ({s.text}): the component holds no such "
                        f"attribute; pass --pass-owner NAME (it then reaches the owner's)") if _literal_name(s.node) \
                    else f"reaches self by a name known only at run time ({s.text})"
                refuse(s.line, f"{request.class_name}.{name} {what}")
            elif s.what == "by-name":
                pass  # getattr(self, "x", ...) with the owner passed whole: getattr(self.OWNER, "x", ...)
            elif not request.pass_owner:
                refuse(s.line, f"{request.class_name}.{name} uses self other than through an attribute ({s.text}): "
                               f"pass --pass-owner NAME to hand the component the owner whole")
    for line, why in _by_name_in_owner(owner, moved):
        if request.keep_wrappers:  # the delegations stay: what reaches a moved method by name still finds it
            notes.append(f"{owner.path}:{line}: {why}; the delegations are kept, so it still finds them")
        else:
            refuse(line, why + ": its delegation goes in step 3 (pass --keep-wrappers to keep it)")
    for f, node, s in program.overrides(owner.qualified, moved):  # every place at once: the analysis goes on
        problems.append(Location(f.path, s.lineno, f"{node.name} overrides {request.class_name}.{s.name}, "
                                                   f"which moves to {request.component}"))

    staying = [fn for name, fns in owner.defs.items() if name not in moved for fn in fns]
    state, readers = _state(owner, request, moved, uses, staying, program, refuse)
    reads = {u.read_chain for name in moved for u in uses[name] if u.read_chain}
    written_after, during_init = _written_after(owner, moved, staying, program, reads,
                                                _first_use(owner, set(moved), set(state)))
    design = Design(request.class_name, request.component, request.target_module, request.attr, moved, helpers,
                    frozen=False)
    if request.pass_owner:
        design.fields.append(Field(request.pass_owner, "owner", "self", request.class_name))
    for name, (stmt, default, annotation) in state.items():
        design.fields.append(Field(name, "state", f"self.{name}", annotation, default,
                                   ast.unparse(stmt) if stmt is not None else ""))
    fields = {} if request.pass_owner else _fields(owner, request, moved, uses, state, written_after, refuse)
    if problems:
        raise Conflicts(problems)
    init_index = _init_statements(owner)
    construct_at, removed, init_writes = _construction(owner, request, design, fields, state, moved, init_index,
                                                       refuse, during_init)
    if problems:
        raise Conflicts(problems)
    # a value field whose source `__init__` assigns again after the building point is a getter
    again = [f for f in fields.values() if f.kind == "value" and any(
        _prefix(c, (f.source.split(".", 1)[1],)) or c[:1] == (f.source.split(".", 1)[1],) for c, _ in init_writes)]
    if again:
        written_after |= {c for c, _ in init_writes}
        fields = _fields(owner, request, moved, uses, state, written_after, refuse)
        construct_at, removed, init_writes = _construction(owner, request, design, fields, state, moved, init_index,
                                                           refuse, during_init)
        if problems:
            raise Conflicts(problems)
    ordered = sorted(fields.values(), key=lambda f: ("value getter callback".split().index(f.kind), 0))
    # keep the order of first use within each kind
    first_use = {}
    for name in moved:
        for u in uses[name]:
            for f in fields.values():
                if f.kind != "callback" and u.read_chain[:len(f.chain.split(".")) - 1] == tuple(f.chain.split(".")[1:]):
                    first_use.setdefault(f.name, (moved.index(name), u.line))
                elif f.kind == "callback" and u.first == f.name:
                    first_use.setdefault(f.name, (moved.index(name), u.line))
    ordered.sort(key=lambda f: ("value getter callback".split().index(f.kind), first_use.get(f.name, (99, 0))))
    design.fields = [*design.by_kind("owner"), *ordered, *design.state]
    design.frozen = not any(u.how == "write" and len(u.names) == 1 for name in moved for u in uses[name]) \
        and not request.pass_owner
    _check_names(owner, request, design, refuse)
    if problems:
        raise Conflicts(problems)
    return Inferred(design, construct_at, removed, readers, notes)


def _literal_name(call: ast.AST) -> Optional[str]:
    """The attribute `getattr(self, "x", ...)` (and the like) names, when it is a literal."""
    if isinstance(call, ast.Call) and len(call.args) > 1 and isinstance(call.args[1], ast.Constant) \
            and isinstance(call.args[1].value, str):
        return call.args[1].value
    return None


def _moved_methods(owner: Owner, request: Request, refuse) -> list[str]:
    out = []
    for name in request.methods:
        defs = owner.defs.get(name)
        if not defs:
            close = [m for m in owner.defs if name in m or m in name][:3]
            raise Refusal(f"{request.class_name} has no method {name}" + (f" (did you mean {', '.join(close)}?)"
                                                                          if close else ""), owner.path,
                          owner.node.lineno)
        if len(defs) > 1:
            refuse(defs[1].lineno, f"{request.class_name}.{name} is defined {len(defs)} times in the class")
            continue
        fn = defs[0]
        if fn.decorator_list:
            refuse(fn.lineno, f"{request.class_name}.{name} has a decorator (@{ast.unparse(fn.decorator_list[0])}): "
                              f"the delegation and the moved method would not be decorated alike; remove it or move "
                              f"the method by hand")
        elif isinstance(fn, ast.AsyncFunctionDef):
            refuse(fn.lineno, f"{request.class_name}.{name} is async: its delegation would have to await it; move "
                              f"it by hand")
        elif self_name(fn) is None:
            refuse(fn.lineno, f"{request.class_name}.{name} takes no self")
        out.append(name)
    return out


def _helpers(owner: Owner, moved: list[str], program: Program) -> list[str]:
    """Private methods the moved ones call that nothing else uses: they move along."""
    helpers: list[str] = []
    todo = list(moved)
    while todo:
        name = todo.pop(0)
        uses, _ = self_uses(owner.method(name))
        for u in uses:
            h = u.first
            if h in moved or h in helpers or h not in owner.defs or not h.startswith("_") or h.startswith("__") \
                    or len(owner.defs[h]) != 1 or owner.defs[h][0].decorator_list:
                continue
            if _used_elsewhere(owner, h, [*moved, *helpers], program):
                continue
            helpers.append(h)
            todo.append(h)
    return helpers


def _used_elsewhere(owner: Owner, name: str, moving: list[str], program: Program) -> bool:
    """`name` is spelled by another method of the owner, its bases or subclasses, or another file."""
    spelled = re.compile(rf"\b{re.escape(name)}\b")
    for fn_name, fns in owner.defs.items():
        if fn_name in moving or fn_name == name:
            continue
        for fn in fns:
            if spelled.search(ast.get_source_segment(owner.text, fn) or ""):
                return True
    outside = [p for p in program.checkout.select(lambda data: True, mentioning=name.encode())
               if Path(p).resolve() != owner.path.resolve()]
    return bool(outside) or bool(program.subclasses(owner.qualified) and any(
        spelled.search(program.checkout.text(program.class_def(s)[0].path)) for s in program.subclasses(
            owner.qualified) if program.class_def(s)))


def _by_name_in_owner(owner: Owner, moved: list[str]) -> list[tuple[int, str]]:
    """`getattr(self, name)` (and the like) in methods that stay, when it may name a moved method."""
    out = []
    for name, fns in owner.defs.items():
        if name in moved:
            continue
        for fn in fns:
            me = self_name(fn)
            for n in ast.walk(fn):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in (
                        "getattr", "hasattr", "setattr", "delattr") and len(n.args) > 1 \
                        and isinstance(n.args[0], ast.Name) and n.args[0].id == me:
                    key = n.args[1]
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        if key.value in moved:
                            out.append((n.lineno, f"{owner.name}.{name} reaches self.{key.value} by name "
                                                  f"({ast.unparse(n)}): it moves to the component"))
                    else:
                        out.append((n.lineno, f"{owner.name}.{name} reaches self by a name known only at run time "
                                              f"({ast.unparse(n)}), which may be a moved method"))
    return out


def _state(owner: Owner, request: Request, moved: list[str], uses: dict, staying: list, program: Program, refuse
           ) -> tuple[dict, dict]:
    """{name: (init statement or None, default, annotation)} of the moved state, and for
    `--state` the staying methods that read it."""
    used = {}
    for name in moved:
        for u in uses[name]:
            if u.first and u.first not in owner.methods and u.first not in owner.properties:
                used.setdefault(u.first, u)
    init = owner.init
    out, readers = {}, {}
    for attr, first in used.items():
        forced = attr in request.state
        users = []
        writers = []
        for fn in staying:
            found, _ = self_uses(fn)
            for u in found:
                if u.first == attr:
                    (writers if u.how == "write" and len(u.names) == 1 else users).append((fn, u))
        init_writes = [(fn, u) for fn, u in writers if fn is init]
        other_writes = [(fn, u) for fn, u in writers if fn is not init]
        reads = [(fn, u) for fn, u in users]
        if (reads or other_writes) and not forced:
            continue
        if _outside_mentions(owner, attr, program) and not forced:
            continue
        if other_writes:
            for fn, u in other_writes:  # every one: a refusal lists all it has to say at once
                refuse(u.line, f"--state {attr}: {owner.name}.{fn.name} writes self.{attr}, and it stays: moved "
                               f"state written by code that stays would no longer reach the component")
            continue
        stmt, default, annotation = None, None, "Any"
        if init_writes:
            if len(init_writes) > 1:
                refuse(init_writes[1][1].line, f"{owner.name}.__init__ assigns self.{attr} more than once: which "
                                               f"value is its default is not one thing")
                continue
            u = init_writes[0][1]
            stmt = next((s for s in init.body if _assigns_self(s, attr, self_name(init))), None)
            if stmt is None:
                refuse(u.line, f"{owner.name}.__init__ assigns self.{attr} inside a block: its default is not one "
                               f"value")
                continue
            default, annotation = _default(stmt.value)
            if default is None:
                if forced:
                    refuse(stmt.lineno, f"--state {attr}: self.{attr} starts as {ast.unparse(stmt.value)}, which a "
                                        f"class body cannot hold as a default (not a literal nor an empty dict, list "
                                        f"or set)")
                continue  # a value the owner gets when it is built: a field like any other
            if isinstance(stmt, ast.AnnAssign):
                annotation = ast.unparse(stmt.annotation)
        else:
            writes_in_moved = [u for n in moved for u in uses[n] if u.first == attr and u.how == "write"
                               and len(u.names) == 1]
            if not writes_in_moved:
                continue  # only read, never set by the owner's code: a value the class gets elsewhere
            default = "field(init=False)"
        out[attr] = (stmt, default, annotation)
        if reads:
            readers[attr] = sorted({fn.name for fn, _ in reads})
    forced_out = [a for a in request.state if a in out]
    if forced_out:
        _outside_state_uses(owner, forced_out, request.attr, program, refuse)
    for attr in request.state:
        if attr not in out and attr in used and not any(f"--state {attr}:" in loc.what for loc in _problems(refuse)):
            refuse(owner.node.lineno, f"--state {attr}: the moved methods use self.{attr}, but it cannot be moved "
                                      f"state: the owner sets it otherwise than once in __init__, or never")
        elif attr not in used:
            refuse(owner.node.lineno, f"--state {attr}: the moved methods do not use self.{attr}")
    return out, readers


def _outside_state_uses(owner: Owner, state: list[str], request_attr: str, program: Program, refuse) -> None:
    """`--state X` moves X into the component, and only the owner's own code (`self.X` in its
    methods) is made to reach it there: any other code reaching X on an owner (another file, a
    subclass, a function of the owner's module) would find nothing. Each is refused, listed, as
    is one whose receiver may be an owner (the code does not say)."""
    from codemods.checkout.callers import method_uses

    found = method_uses(program, owner.qualified, state)
    for u in found.callers:
        if u.in_class is not None and u.receiver == self_name(owner.method(u.in_class)):
            continue  # the owner's own `self.X`: it reaches the component (step 1)
        verb = "writes" if isinstance(u.node.ctx, (ast.Store, ast.Del)) else "reads"
        refuse_at(refuse, u.path, u.line, f"--state {u.method}: {verb} {u.receiver}.{u.method}, which as moved state "
                                          f"would be {u.receiver}.{request_attr}.{u.method}: the tool makes only "
                                          f"{owner.name}'s own methods reach it there; leave it out of --state")
    for loc in [*found.ambiguous, *found.conflicts, *found.by_name]:
        name = next((a for a in state if f".{a}" in loc.what), state[0])
        refuse_at(refuse, loc.path, loc.line, f"--state {name}: {loc.what}; as moved state of the component it "
                                              f"would no longer be on {owner.name}")
    for p in found.patches:
        refuse_at(refuse, p.path, p.node.lineno, f"--state {p.method}: patches {p.node.value!r}, which would no "
                                                 f"longer be on {owner.name}")


def refuse_at(refuse, path: Path, line: int, why: str) -> None:
    """A place to refuse in another file than the owner's (`refuse` records the owner's)."""
    _problems(refuse).append(Location(path, line, why))


def _problems(refuse) -> list:
    """The places `refuse` (a closure over the run's list) has recorded so far."""
    cell = next((c for c in (refuse.__closure__ or ()) if isinstance(c.cell_contents, list)), None)
    return cell.cell_contents if cell is not None else []


def _outside_mentions(owner: Owner, attr: str, program: Program) -> bool:
    """Another file, or a subclass, may reach `attr` on the owner (conservatively: spells `.attr`)."""
    spelled = re.compile(rb"\." + re.escape(attr.encode()) + rb"\b")
    for p in program.checkout.select(lambda data: spelled.search(data) is not None, mentioning=attr.encode()):
        if Path(p).resolve() != owner.path.resolve():
            return True
    return False


def _assigns_self(stmt: ast.stmt, attr: str, me: str) -> bool:
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else \
        stmt.target if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else None
    return isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name) \
        and target.value.id == me


def _default(value: ast.expr) -> tuple[Optional[str], str]:
    """(the default a class body writes for this initial value, its annotation), or (None, _)."""
    if isinstance(value, ast.Dict) and not value.keys:
        return "field(default_factory=dict)", "dict"
    if isinstance(value, ast.List) and not value.elts:
        return "field(default_factory=list)", "list"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("dict", "list", "set") \
            and not value.args and not value.keywords:
        return f"field(default_factory={value.func.id})", value.func.id
    try:
        literal = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None, "Any"
    if isinstance(literal, (list, dict, set)):
        return None, "Any"  # a mutable default shared by every instance: not what `__init__` did
    kind = "Any" if literal is None else type(literal).__name__
    return ast.unparse(value), ("Optional[Any]" if literal is None else kind)


def _written_after(owner: Owner, moved: list[str], staying: list, program: Program,
                   reads: set[tuple[str, ...]], before: int) -> tuple[set[tuple[str, ...]], set[str]]:
    """(attribute chains of `self` assigned by code that may run once the component is built: every
    method of the owner, its bases and its subclasses other than `__init__` and the methods that
    run only while it runs (the moved methods' own writes through a chain of the owner's objects
    excepted: they write the same object); those methods, whose writes `__init__` makes where it
    calls them). `reads`: the chains the moved methods read (only a method writing one of them
    is asked whether it runs only in `__init__`); `before`: the first statement of `__init__`
    that may use the component (a method called there or later is not one of those)."""
    out: set[tuple[str, ...]] = set()
    writes = {fn.name: {c for c, _ in written_chains(fn)} for fn in staying if fn.name != "__init__"}
    asked = {name for name, chains in writes.items() if any(_prefix(c, r) for c in chains for r in reads)}
    init = owner.init
    during_init = set() if init is None else run_only_in_init(
        owner.node, init.body[:before], self_name(init), {n for n in asked if n not in owner.properties}, owner.text,
        program.checkout, owner.path)
    for name, chains in writes.items():
        if name not in during_init:
            out |= chains
    for cls, _ in owner.lineage[1:]:
        for s in cls.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name != "__init__":
                out |= {c for c, _ in written_chains(s)}
    for sub in program.subclasses(owner.qualified):
        got = program.class_def(sub)
        if got is None:
            continue
        for s in got[1].body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name != "__init__":
                out |= {c for c, _ in written_chains(s)}
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out |= _written_after_super_init(s)
    return out, during_init


def _written_after_super_init(init: ast.FunctionDef) -> set[tuple[str, ...]]:
    """A subclass's `__init__`: what it assigns once `super().__init__(...)` (which builds the
    component) has run; one that never calls it never builds the component, so rebinds nothing
    of it."""
    for i, stmt in enumerate(init.body):
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__"
               for n in ast.walk(stmt)):
            rest = ast.FunctionDef(name="f", args=init.args, body=init.body[i:], decorator_list=[], returns=None,
                                   type_params=[], lineno=init.lineno, col_offset=0)
            return {c for c, _ in written_chains(rest)}
    return set()


def _prefix(chain: tuple[str, ...], of: tuple[str, ...]) -> bool:
    """`chain` is `of` or starts it (`("model_config",)` of `("model_config", "model_path")`)."""
    return len(chain) <= len(of) and of[:len(chain)] == chain


def _fields(owner: Owner, request: Request, moved: list[str], uses: dict, state: dict,
            written_after: set, refuse) -> dict[str, Field]:
    """Value fields, getters and callbacks, by field name."""
    out: dict[str, Field] = {}
    chains: dict[tuple[str, ...], Field] = {}
    annotations = attribute_types(owner.text, owner.name, owner.root, owner.module,
                                  {u.first for n in moved for u in uses[n] if u.first})
    for name in moved:
        for u in uses[name]:
            first = u.first
            if first is None or first in moved or first in state:
                continue
            if first in owner.methods and first not in owner.properties:
                if len(u.names) > 1 and u.how != "call" and not (len(u.names) == 2 and u.how == "call"):
                    pass
                new = request.field_names.get(first, first)
                out.setdefault(new, Field(new, "callback", f"self.{first}", "Callable[..., Any]"))
                continue
            if u.how == "write" and len(u.names) == 1:
                refuse(u.line, f"{owner.name}.{name} writes self.{first}, an attribute of {owner.name} the component "
                               f"does not own (it is not moved state: other code uses it); pass --pass-owner NAME to "
                               f"hand the component the owner whole")
                continue
            chain = u.read_chain
            if not chain:
                continue
            rebound = first in owner.properties or any(_prefix(w, chain) for w in written_after)
            if rebound:
                key = chain if first not in owner.properties else chain[:1]
                if key in chains:
                    continue
                dotted = ".".join(key)
                new = request.field_names.get(dotted) or request.field_names.get(first if len(key) == 1 else dotted) \
                    or f"get_{key[-1]}"
                if new in out and out[new].source != "self." + dotted:
                    new = "get_" + "_".join(key)
                t = annotations.get(first) if len(key) == 1 else None
                chains[key] = out[new] = Field(new, "getter", "self." + dotted, f"Callable[[], {t or 'Any'}]")
            else:
                new = request.field_names.get(first, first)
                if new not in out:
                    out[new] = Field(new, "value", f"self.{first}", annotations.get(first) or "Any")
    for f in list(out.values()):
        if f.kind == "value" and f.source.split(".", 1)[1] in owner.class_attrs:
            pass  # a class attribute read through self: a value like any other
    return out


def _init_statements(owner: Owner) -> list[ast.stmt]:
    return list(owner.init.body) if owner.init is not None else []


def _resolved(owner: Owner, name: str, start: int = 0) -> Optional[tuple[ast.FunctionDef, int]]:
    """The method `name` that `self.name` runs on an owner, looked up from `owner.lineage[start]`
    (the owner, then its bases in the tree), with the index of the class defining it; None where
    the line of classes is not a single chain up to it (several bases: the MRO is not followed)."""
    for i, (cls, _) in enumerate(owner.lineage[start:], start):
        fn = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == name), None)
        if fn is not None:
            return fn, i
        if len(cls.bases) != 1:
            return None
    return None


def _super_init(call: ast.Call, me: str) -> bool:
    """`super().__init__(...)` or `super(C, me).__init__(...)`."""
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call) \
        and callee_name(func.value) == "super" and (not func.value.args or (
            len(func.value.args) == 2 and isinstance(func.value.args[1], ast.Name) and func.value.args[1].id == me))


def _assigned_by(stmt: ast.stmt, attr: str, owner: Owner, me: str, depth: int = 0, level: int = 0) -> bool:
    """Whether running `stmt` (a statement of an owner method whose self is `me`, defined in
    `owner.lineage[level]`) assigns `self.attr` on every path that completes normally; a call
    `self.m(...)` runs the method an owner has for m, `super().__init__(...)` the next base's
    `__init__` in a single chain of bases."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            for one in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                if isinstance(one, ast.Attribute) and one.attr == attr and isinstance(one.value, ast.Name) \
                        and one.value.id == me:
                    return True
        return False
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and depth < 4:
        func = stmt.value.func
        found = None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == me:
            found = _resolved(owner, func.attr)
        elif _super_init(stmt.value, me) and level + 1 < len(owner.lineage) \
                and len(owner.lineage[level][0].bases) == 1:
            found = _resolved(owner, "__init__", level + 1)
        if found is None:
            return False
        fn, at = found
        return any(_assigned_by(s, attr, owner, self_name(fn), depth + 1, at) for s in fn.body)
    if isinstance(stmt, ast.If):
        return bool(stmt.orelse) and any(_assigned_by(s, attr, owner, me, depth, level) for s in stmt.body) and any(
            _assigned_by(s, attr, owner, me, depth, level) for s in stmt.orelse)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return any(_assigned_by(s, attr, owner, me, depth, level) for s in stmt.body)
    if isinstance(stmt, ast.Try):
        return any(_assigned_by(s, attr, owner, me, depth, level) for s in stmt.body) and all(
            any(_assigned_by(s, attr, owner, me, depth, level) or isinstance(s, ast.Raise) for s in h.body)
            for h in stmt.handlers)
    return False


def _reaches(owner: Owner, targets: set[str], state: set[str]) -> set[str]:
    """The owner's methods that may use the component: call a moved method or touch moved state,
    directly or through other owner methods."""
    calls: dict[str, set[str]] = {}
    direct = set()
    for name, fns in owner.defs.items():
        for fn in fns:
            found, _ = self_uses(fn)
            calls.setdefault(name, set()).update(u.first for u in found if u.first in owner.defs)
            if any(u.first in targets or u.first in state for u in found):
                direct.add(name)
    out = set(direct) | set(targets)
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            if name not in out and called & out:
                out.add(name)
                changed = True
    return out


def _first_use(owner: Owner, moved: set[str], state: set[str]) -> int:
    """The index of the first statement of `__init__` that may use the component (but one that
    initialises moved state), else the number of its statements."""
    if owner.init is None:
        return 0
    me, reach = self_name(owner.init), _reaches(owner, moved, state)
    return next((i for i, s in enumerate(owner.init.body) if not any(_assigns_self(s, a, me) for a in state)
                 and _uses_component(s, reach, state, me, owner)), len(owner.init.body))


def _construction(owner: Owner, request: Request, design: Design, fields: dict, state: dict, moved: list[str],
                  body: list[ast.stmt], refuse, during_init: set[str] = frozenset()) -> tuple[int, list[int], list]:
    """(index in `__init__` where the owner builds the component, the state initialisations it
    replaces, the chains `__init__` assigns after that point, also through the methods of
    `during_init` it calls there)."""
    init = owner.init
    if init is None:
        refuse(owner.node.lineno, f"{owner.name} has no __init__ of its own to build {request.component} in")
        return 0, [], []
    me = self_name(init)
    sources = sorted({f.source.split(".", 1)[1] for f in fields.values() if f.kind == "value"})
    removed = [i for i, s in enumerate(body) if any(_assigns_self(s, attr, me) for attr in state)]
    ready = 0
    for attr in sources:
        at = next((i + 1 for i, s in enumerate(body) if _assigned_by(s, attr, owner, me)), None)
        if at is None and attr in owner.class_attrs:
            at = 0  # a class attribute (of the owner or a base): there before __init__ runs
        if at is None:
            refuse(init.lineno, f"no valid construction point: {owner.name}.__init__ does not assign self.{attr} "
                                f"on every path (the field {attr} of {request.component} is read from it when the "
                                f"component is built)")
            return 0, removed, []
        ready = max(ready, at)
    first_use = _first_use(owner, set(moved), set(state))
    at = removed[0] if removed and removed[0] >= ready else ready
    if at > first_use:
        need = body[first_use]
        refuse(need.lineno, f"no valid construction point: this statement of {owner.name}.__init__ may use "
                            f"{request.component} (it calls a moved method or touches moved state), but the "
                            f"sources of its fields are assigned only by line {body[ready - 1].end_lineno}")
        return 0, removed, []
    after = []
    for s in body[at:]:
        if s in [body[i] for i in removed]:
            continue
        for n in ast.walk(s):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                fake = ast.FunctionDef(name="f", args=init.args, body=[s], decorator_list=[], returns=None,
                                       type_params=[], lineno=s.lineno, col_offset=0)
                after += written_chains(fake)
                break
    todo = [n for n in during_init if any(calls_on_self(s, n, me) for s in body[at:])]
    seen = set(todo)
    while todo:  # what they write, and the methods of `during_init` they call
        fn = owner.defs[todo.pop()][0]
        after += written_chains(fn)
        for n in during_init - seen:
            if calls_on_self(fn, n, self_name(fn)):
                seen.add(n)
                todo.append(n)
    return at, removed, after


def _uses_component(stmt: ast.stmt, reach: set[str], state: dict, me: str, owner: Optional[Owner] = None,
                    level: int = 0, depth: int = 0) -> bool:
    """Whether `stmt` may use the component: it reaches a method of `reach` or moved state on self,
    or it is `super().__init__(...)` and a base's `__init__` (in a single chain) does."""
    for n in ast.walk(stmt):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me and (
                n.attr in reach or n.attr in state):
            return True
        if owner is not None and depth < 4 and isinstance(n, ast.Call) and _super_init(n, me) \
                and level + 1 < len(owner.lineage) and len(owner.lineage[level][0].bases) == 1:
            found = _resolved(owner, "__init__", level + 1)
            if found is None:  # no __init__ up a single chain of bases in the tree: not followed
                continue
            fn, at = found
            if any(_uses_component(s, reach, state, self_name(fn), owner, at, depth + 1) for s in fn.body):
                return True
    return False


def _check_names(owner: Owner, request: Request, design: Design, refuse) -> None:
    names = [f.name for f in design.fields]
    for f in design.fields:
        if names.count(f.name) > 1:
            refuse(owner.node.lineno, f"two fields of {request.component} would be named {f.name}: name one with "
                                      f"--field ATTR=NAME")
            break
        if f.name in design.methods:
            refuse(owner.node.lineno, f"the field {f.name} of {request.component} ({f.source}) would have the name "
                                      f"of a moved method: name it with --field ATTR=NAME")
    for name in (request.attr, design.builder):
        if name in owner.defs or name in owner.methods or name in owner.properties or name in owner.class_attrs:
            refuse(owner.node.lineno, f"{owner.name} already has a member {name}: choose another --attr")
    me_uses = re.compile(rf"\bself\.{re.escape(request.attr)}\b")
    if me_uses.search(owner.text):
        at = owner.text.count("\n", 0, me_uses.search(owner.text).start()) + 1
        refuse(at, f"{owner.name} already uses self.{request.attr}: choose another --attr")
    for f in request.field_names:
        if not any(f == x.source.split(".", 1)[1] for x in design.fields if x.kind != "owner"):
            refuse(owner.node.lineno, f"--field {f}=...: the component has no field for self.{f}")
