"""What the code under test reads from outside itself, derived from its source (`ast` only).

Module globals read by the code under test (the call site, the wrapper, the method or moved
function, and the module-level helper functions they call, transitively) are sorted:
- code, run for real: functions and classes of the loaded modules, the loaded modules
  themselves, names bound once to a literal, values computed at import from real modules only
  (a logger, a table of torch dtypes, a sentinel object), builtins, faithful helpers;
- real modules: the pure standard library (math, re, itertools, collections, logging: its
  records are captured, ...) and torch (its dtypes are values the code compares), except
  WORLD_SUBMODULES (`torch.distributed`, `torch.cuda`): through `import torch`, a proxy
  (standins.PartlyRealModule); imported from, inputs keyed by their name;
- `os`: a proxy whose environment reads are world keys `env:NAME` (standins.OsProxy);
- inputs, answered by the world under a key naming their ORIGIN, so that the before module's
  global and the after module's copy get the same key: names imported from sglang (stubbed),
  e.g. `sglang.srt.utils.get_cpu_ids_by_node`; other modules (time, subprocess, sys, ...);
  values computed at import from those, keyed by the defining expression with every name
  replaced by its origin, e.g. `_use_aiter` ->
  `sglang.srt.utils.get_bool_env_var('SGLANG_USE_AITER') and sglang.srt.utils.is_hip()`.
Also derived here: attribute names the code allows to be missing (`getattr(x, "n", default)`,
`hasattr(x, "n")`, reads under `except AttributeError`), the strings it tests values
against (the pool for environment variables) and the keys of the tables it looks values up in.
"""

from __future__ import annotations

import ast
import functools
import math
from dataclasses import dataclass, field, replace

from pysource.bindings import binding_index
from equivalence.engine.load.literals import fixed_names, key_literals, literal_globals, string_literals
from pysource.modules import import_bindings, module_name
from pysource.names import global_reads

REAL_MODULES = {
    "__future__", "abc", "bisect", "collections", "contextlib", "copy", "dataclasses", "decimal", "enum",
    "fractions", "functools", "heapq", "inspect", "itertools", "json", "logging", "math", "numbers",
    "operator", "re", "statistics", "string", "textwrap", "types", "typing", "typing_extensions", "weakref",
    "torch", "numpy",
}
# submodules of real modules that answer from the process and its devices (process groups,
# collectives, device meshes, CUDA state): inputs by their name, like non-pure modules; with
# torch.get_device_module, which hands out such a module (torch.cuda, torch.npu) for a device
WORLD_SUBMODULES = ("torch.distributed", "torch.cuda", "torch.get_device_module")


def world_submodule(dotted: str) -> bool:
    """`dotted` is, or is inside, one of WORLD_SUBMODULES."""
    return any(dotted == m or dotted.startswith(m + ".") for m in WORLD_SUBMODULES)


def holds_world_submodule(dotted: str) -> bool:
    """`dotted` is a real module one of WORLD_SUBMODULES is inside (`torch`)."""
    return any(m.startswith(dotted + ".") for m in WORLD_SUBMODULES)


@dataclass(frozen=True)
class GlobalInput:
    """A module global replaced while the code under test runs."""

    rel: str  # the module file
    name: str
    key: str | None  # the world key answering it (None: `proxy` stands in, the same every run)
    proxy: str | None = None  # "os", "environ", "getenv", "partly real" (torch), "effect" (a torch function
    # called for its effect: `effects` holds its qualname), or a faithful helper "module:name"
    imported: bool = False  # an imported name (always there, never None) rather than a computed value
    platform: tuple[str, ...] = ()  # "partly real": the attributes the code tests the module has (hasattr)
    effects: tuple[str, ...] = ()  # "partly real": its functions the code calls for their effect (result dropped);
    # "effect": the qualname of the function


@dataclass
class Inputs:
    globals: list[GlobalInput] = field(default_factory=list)
    helpers: list[tuple[str, ast.FunctionDef]] = field(default_factory=list)  # run for real
    absent_names: frozenset = frozenset()
    strings: tuple[str, ...] = ()
    numbers: tuple[int, ...] = ()
    keys: tuple = ()  # the keys of the tables the code looks values up in
    lengths: tuple[int, ...] = ()  # lengths its code tests or needs (`len(x) == 4`, `x[3]`, `a, b = x`)
    items: tuple = ()  # the keys it looks items up by (`x["name"]`, `x.get("name")`, `"name" in x`)
    reads: set[tuple[str, str]] = field(default_factory=set)  # (module file, global) the code reads
    imported: set[str] = field(default_factory=set)  # origins it reaches through an import (`M.f`, `M`)


def skip_annotations(node: ast.AST):
    """ast.walk without annotations and decorators (not evaluated by a call)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for fname, value in ast.iter_fields(n):
            if fname in ("annotation", "returns", "decorator_list"):
                continue
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)


class ModuleGlobals:
    """One loaded module's globals, sorted as the module docstring says."""

    def __init__(self, rel: str, tree: ast.Module, loaded: set[str], package: str, helpers_known: set,
                 canonical=lambda qualname: qualname):
        self.rel, self.tree, self.loaded, self.package = rel, tree, loaded, package
        self.canonical = canonical  # re-exports followed: the same object gets the same key
        self.index = binding_index(tree)
        self.literals = set(literal_globals(tree))
        self.helpers_known = helpers_known
        self._origin: dict[str, str | None] = {}

    def binding(self, name: str) -> list[ast.stmt]:
        return self.index.get(name, [])

    def _import(self, name: str, stmt: ast.stmt):
        return next(b for b in import_bindings(stmt, self.rel) if b.name == name)

    def origin(self, name: str, seen: frozenset = frozenset()) -> str | None:
        """The key of an input global, or None when the global is code / real."""
        if name not in self._origin:
            self._origin[name] = self._find_origin(name, seen | {name})
        return self._origin[name]

    def _find_origin(self, name: str, seen: frozenset) -> str | None:
        stmts = self.binding(name)
        if not stmts or name in self.literals:
            return None
        if any(isinstance(s, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) for s in stmts):
            return None
        stmt = stmts[-1]
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            binding = self._import(name, stmt)
            if binding.qualname in self.loaded or binding.from_module in self.loaded \
                    or self.canonical(binding.qualname).rpartition(".")[0] in self.loaded:
                return None  # loaded for real (through a re-export too: version._follow_reexports)
            if (binding.from_module, name) in self.helpers_known:
                return None
            top = binding.qualname.split(".")[0]
            if top == self.package or top not in REAL_MODULES or world_submodule(binding.qualname):
                return self.canonical(binding.qualname)
            return None
        values = [s.value for s in stmts if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and s.value]
        if not values or not any(self._tainted(v, seen) for v in values):
            return None
        return " | ".join(self._resolve(v, seen) for v in values)

    def _tainted(self, expr: ast.AST, seen: frozenset) -> bool:
        for read in global_reads(expr):
            if read in seen:
                continue
            if self.origin(read, seen) is not None or read in ("os",):
                return True
            fn = next((s for s in self.binding(read) if isinstance(s, ast.FunctionDef)), None)
            if fn is not None and self._tainted(fn, seen | {read}):
                return True
        return False

    def _resolve(self, expr: ast.AST, seen: frozenset) -> str:
        """`expr` with each global replaced by its origin (imports by their qualified name)."""
        module = self

        class Resolve(ast.NodeTransformer):
            def visit_Name(self, node):
                stmts = module.binding(node.id)
                if not stmts or node.id in seen:
                    return node
                stmt = stmts[-1]
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    return ast.Name(module.canonical(module._import(node.id, stmt).qualname), ast.Load())
                origin = module.origin(node.id, seen)
                if origin is None:
                    return node
                try:
                    return ast.parse(origin, mode="eval").body
                except SyntaxError:
                    return ast.Name(f"({origin})", ast.Load())

        return ast.unparse(Resolve().visit(ast.parse(ast.unparse(expr), mode="eval")).body)

    def proxy(self, name: str) -> str | None:
        stmts = self.binding(name)
        if not stmts or not isinstance(stmts[-1], (ast.Import, ast.ImportFrom)):
            return None
        binding = self._import(name, stmts[-1])
        if binding.qualname == "os":
            return "os"
        if binding.qualname in ("os.environ", "os.getenv"):
            return binding.qualname.rpartition(".")[2]
        if (binding.from_module, name) in self.helpers_known:
            return f"{binding.from_module}:{name}"
        if holds_world_submodule(binding.qualname):
            return "partly real"
        return None

    def imported_qualname(self, name: str) -> str | None:
        """What the module-level import binding `name` imports, if an import binds it last."""
        stmts = self.binding(name)
        if not stmts or not isinstance(stmts[-1], (ast.Import, ast.ImportFrom)):
            return None
        return self._import(name, stmts[-1]).qualname

    def imports_only(self, name: str) -> bool:
        """`name` is bound by `import name` statements only (the real module)."""
        stmts = self.binding(name)
        return bool(stmts) and all(isinstance(s, ast.Import) and self._import(name, s).qualname == name
                                   for s in stmts)

    def helper(self, name: str) -> ast.FunctionDef | None:
        stmts = self.binding(name)
        return stmts[-1] if len(stmts) == 1 and isinstance(stmts[0], (ast.FunctionDef, ast.AsyncFunctionDef)) else None

    def class_methods(self, name: str) -> list[ast.FunctionDef]:
        """The methods of the class `name` binds (once): run for real when the code makes or is
        given one, they read this module's globals as the code under test does."""
        stmts = self.binding(name)
        if len(stmts) != 1 or not isinstance(stmts[0], ast.ClassDef):
            return []
        return [n for n in stmts[0].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def derive(units: list[tuple[str, ast.AST, set[str]]], trees: dict[str, ast.Module], package: str,
           helpers_known: set, canonical=lambda qualname: qualname, real_inputs: dict | None = None) -> Inputs:
    """`units`: (module file, node, names local to it) of the code under test; `canonical`
    follows re-exports (`sglang.srt.utils.is_hip` -> `sglang.srt.utils.common.is_hip`);
    `real_inputs`: real modules a preset makes inputs (module name -> key), when the code reads
    them as bound by `import NAME` only."""
    loaded = {module_name(rel) for rel in trees}
    modules = {rel: ModuleGlobals(rel, tree, loaded, package, helpers_known, canonical) for rel, tree in trees.items()}
    out = Inputs()
    todo = [(rel, name) for rel, node, local in units for name in sorted(global_reads(node, local))]
    seen, code = set(), [(rel, node) for rel, node, _ in units]
    while todo:
        rel, name = todo.pop(0)
        if (rel, name) in seen:
            continue
        seen.add((rel, name))
        module = modules[rel]
        helper = module.helper(name)
        if helper is not None:
            out.helpers.append((rel, helper))
            code.append((rel, helper))
            todo += [(rel, n) for n in sorted(global_reads(helper, {name}))]
            continue
        for method in module.class_methods(name):  # a class of the module: its methods' globals too
            todo += [(rel, n) for n in sorted(global_reads(method, set()))]
        if name in (real_inputs or {}) and module.imports_only(name):
            out.globals.append(GlobalInput(rel, name, real_inputs[name], imported=True))
            continue
        proxy = module.proxy(name)
        if proxy is not None:
            out.globals.append(GlobalInput(rel, name, None, proxy))
            continue
        origin = module.origin(name)
        if origin is not None:
            imported = isinstance(module.binding(name)[-1], (ast.Import, ast.ImportFrom))
            out.globals.append(GlobalInput(rel, name, origin, imported=imported))
    out.reads = seen
    _platform_axes(out, code, modules, real_inputs or {})
    _effect_calls(out, code, modules)
    out.imported = {g.key for g in out.globals if g.imported} | _imported(code, modules)
    out.absent_names = absent_names([node for _, node in code])
    out.strings = string_pool(code, trees)
    fixed = {id(node): fixed_names(trees[rel], node) for rel, node in code if rel in trees}
    out.numbers = number_pool([node for _, node in code], fixed)
    out.keys = key_pool(code, trees)
    out.lengths = length_pool([node for _, node in code], fixed)
    out.items = item_pool([node for _, node in code])
    return out


def platform_tests(nodes: list[ast.AST]) -> dict[str, set[str]]:
    """name -> the attributes the code tests it for: `hasattr(NAME, "attr")`, `getattr(NAME, "attr", d)`."""
    out: dict[str, set[str]] = {}
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("hasattr", "getattr") \
                    and len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and isinstance(n.args[1], ast.Constant) \
                    and isinstance(n.args[1].value, str) and (n.func.id == "hasattr" or len(n.args) == 3):
                out.setdefault(n.args[0].id, set()).add(n.args[1].value)
    return out


def _platform_axes(out: Inputs, code: list[tuple[str, ast.AST]], modules: dict[str, "ModuleGlobals"],
                   real_inputs: dict) -> None:
    """A real module the code tests for an attribute (`hasattr(torch, "float4_e2m1fn_x2")`) varies
    with the platform: it becomes a partly real module whose tested attributes are the world's
    keys `MODULE.attr`, there (the real value) or absent, both ways run."""
    for rel, node in code:
        for name, attrs in platform_tests([node]).items():
            module = modules[rel]
            if (rel, name) not in out.reads or name in real_inputs or module.imported_qualname(name) is None \
                    or not module.imports_only(name) or name.split(".")[0] not in REAL_MODULES:
                continue
            found = next((i for i, g in enumerate(out.globals) if (g.rel, g.name) == (rel, name)), None)
            if found is None:
                out.globals.append(GlobalInput(rel, name, None, "partly real", platform=tuple(sorted(attrs))))
            elif out.globals[found].proxy == "partly real":
                g = out.globals[found]
                out.globals[found] = GlobalInput(rel, name, None, "partly real",
                                                 platform=tuple(sorted({*g.platform, *attrs})))


EFFECT_ROOTS = ("torch",)  # real modules whose functions the code may call for an effect outside the process


def _effect_calls(out: Inputs, code: list[tuple[str, ast.AST]], modules: dict[str, "ModuleGlobals"]) -> None:
    """A torch function the code calls as a statement (`torch.empty(size, device=d)` in a pool's
    set-up, `torch.manual_seed(s)`) or enters as a context (`with record_function("label"):`,
    a profiler's range) is called for an effect the process does not show: the call, with its
    arguments, is an event of the run. Through a partly real module (`torch.X`), or a name
    imported from torch (a proxy "effect" records it)."""
    called: dict[tuple[str, str], set[str]] = {}
    imported: dict[tuple[str, str], str] = {}
    for rel, node in code:
        for call in _calls_for_effect(node):
            f = call.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                called.setdefault((rel, f.value.id), set()).add(f.attr)
            elif isinstance(f, ast.Name) and (rel, f.id) in out.reads:
                qualname = modules[rel].imported_qualname(f.id)
                if qualname and qualname.split(".")[0] in EFFECT_ROOTS and not world_submodule(qualname):
                    imported[(rel, f.id)] = qualname
    for i, g in enumerate(out.globals):
        names = {a for a in called.get((g.rel, g.name), ()) if not world_submodule(f"{g.name}.{a}")}
        if g.proxy == "partly real" and names - set(g.effects):
            out.globals[i] = replace(g, effects=tuple(sorted({*g.effects, *names} - set(g.platform))))
    replaced = {(g.rel, g.name) for g in out.globals}
    out.globals += [GlobalInput(rel, name, None, "effect", effects=(qualname,))
                    for (rel, name), qualname in sorted(imported.items()) if (rel, name) not in replaced]


def _calls_for_effect(node: ast.AST):
    """The calls whose result the code drops: statements, and `with` items bound to no name."""
    for n in ast.walk(node):
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):
            yield n.value
        elif isinstance(n, (ast.With, ast.AsyncWith)):
            yield from (item.context_expr for item in n.items
                        if isinstance(item.context_expr, ast.Call) and item.optional_vars is None)


def target_defs(target_rel: str | None, function: str | None, inputs: Inputs, trees, other: Inputs) -> list[GlobalInput]:
    """The functions and classes of the target module (`target_rel`, whose function `function` is
    the moved one) that the code reads and the other version of a pair reaches through an import
    of the target (`from TARGET import f`, function-level or not, `TARGET.f`): not the subject of
    the refactoring, each is an input keyed by its origin `TARGET.NAME` in both. `trees`: file ->
    parsed module."""
    if target_rel is None:
        return []
    return [GlobalInput(rel, name, f"{module_name(rel)}.{name}", imported=True) for rel, name in sorted(inputs.reads)
            if rel == target_rel and name != function and f"{module_name(rel)}.{name}" in other.imported
            and _defines(trees(rel), name)]


def _imported(code: list[tuple[str, ast.AST]], modules: dict[str, ModuleGlobals]) -> set[str]:
    """The origins `code` reaches through imports: what its function-level imports bind, and
    `X.attr` where X is an imported name (function-level or module-level)."""
    out = set()
    for rel, node in code:
        module = modules[rel]
        local = {b.name: b.qualname for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))
                 for b in import_bindings(n, rel)}
        out |= {module.canonical(q) for q in local.values()}
        for n in ast.walk(node):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
                qualname = local.get(n.value.id) or module.imported_qualname(n.value.id)
                if qualname:
                    out.add(module.canonical(f"{qualname}.{n.attr}"))
    return out


def _defines(tree: ast.Module, name: str) -> bool:
    return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for s in binding_index(tree).get(name, []))


def absent_names(nodes: list[ast.AST]) -> frozenset:
    names = set()
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and len(n.args) >= 2 \
                    and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
                if (n.func.id == "getattr" and len(n.args) == 3) or n.func.id == "hasattr":
                    names.add(n.args[1].value)
            elif isinstance(n, ast.Try) and any(_catches_attribute_error(h) for h in n.handlers):
                names |= {a.attr for s in n.body for a in ast.walk(s) if isinstance(a, ast.Attribute)}
    return frozenset(names)


def _catches_attribute_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = {n.id for n in ast.walk(handler.type) if isinstance(n, ast.Name)}
    return bool(names & {"AttributeError", "Exception", "BaseException"})


def string_pool(code: list[tuple[str, ast.AST]], trees: dict[str, ast.Module]) -> list[str]:
    """Strings the code tests values against (literals.py), plus a value holding each separator
    a `.split(sep)` uses: the options of environment variables."""
    found: list[str] = []
    for rel, tree in trees.items():
        found += string_literals([node for r, node in code if r == rel], tree, skip_annotations)
    for _, node in code:
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("split", "rsplit") \
                    and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                found.append(f"a{n.args[0].value}b")
    other_case = [s.swapcase() for s in found if s.swapcase() != s]
    return tuple(dict.fromkeys(["", *found, *other_case]))


def key_pool(code: list[tuple[str, ast.AST]], trees: dict[str, ast.Module]) -> tuple:
    """The keys of the code's tables (literals.py): the options of a stand-in looked up in one."""
    found: list = []
    for rel, tree in trees.items():
        found += key_literals([node for r, node in code if r == rel], tree, skip_annotations)
    return tuple(dict.fromkeys(found))


def number_pool(nodes: list[ast.AST], fixed: dict[int, dict] | None = None) -> tuple[int, ...]:
    """The ints the code compares with or computes with, and the bounds of its `range(...)`s (the
    values a range holds are compared later: `[bs for bs in range(272, 512, 16) if bs <= max_bs]`
    tells `max_bs` apart only near 272 and 512); `fixed`: id of a node -> the names the source
    fixes for it (literals.fixed_names: `MAX_ITEMS = 8` is 8)."""
    found = []
    for node in nodes:
        names = (fixed or {}).get(id(node), {})
        constant_int = functools.partial(_constant_int, names=names)
        for n in ast.walk(node):
            if isinstance(n, ast.Compare):
                sides = [n.left, *n.comparators]
            elif isinstance(n, ast.BinOp):
                sides = [n.left, n.right]
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "range" and not n.keywords:
                sides = n.args[:2]
            else:
                continue
            found += [v for v in map(constant_int, sides) if v is not None]
            if isinstance(n, ast.Compare):  # a float compared with: only the text of numbers takes it (world.py)
                found += [s.value for s in sides if isinstance(s, ast.Constant) and type(s.value) is float
                          and math.isfinite(s.value)]
    return tuple(dict.fromkeys(found))


MAX_LENGTH = 64  # longer sequences are not offered


def length_pool(nodes: list[ast.AST], fixed: dict[int, dict] | None = None) -> tuple[int, ...]:
    """The lengths a sequence needs for the code's tests and uses, beyond the 0-3 always offered:
    `len(x) == N` (N and N + 1, also where N is a name the source fixes: `len(x) > MAX_ITEMS`),
    an item `x[k]` (k + 1), unpacking into n names (n)."""
    found = []
    for node in nodes:
        names = (fixed or {}).get(id(node), {})
        constant_int = functools.partial(_constant_int, names=names)
        for n in ast.walk(node):
            if isinstance(n, ast.Compare):
                sides = [n.left, *n.comparators]
                if any(isinstance(x, ast.Call) and isinstance(x.func, ast.Name) and x.func.id == "len" for x in sides):
                    for v in map(constant_int, sides):
                        if v is not None:
                            found += [v, v + 1]
            elif isinstance(n, ast.Subscript) and not isinstance(n.slice, ast.Slice):
                v = constant_int(n.slice)
                if v is not None and v >= 0:
                    found.append(v + 1)
            elif isinstance(n, (ast.Assign, ast.For, ast.comprehension)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                found += [len(t.elts) for t in targets if isinstance(t, (ast.Tuple, ast.List))
                          and not any(isinstance(e, ast.Starred) for e in t.elts)]
    return tuple(v for v in dict.fromkeys(found) if 3 < v <= MAX_LENGTH)


def item_pool(nodes: list[ast.AST]) -> tuple:
    """The string keys the code looks items up by: `x["k"]`, `x.get("k")` (pop, setdefault), `"k" in x`,
    also through the variable of a loop over literal strings (`for k in ("image", "video"): if k in x`)."""
    found = []
    for node in nodes:
        looped = _loop_literals(node)
        for n in ast.walk(node):
            key = None
            if isinstance(n, ast.Subscript):
                key = n.slice
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("get", "pop", "setdefault") \
                    and n.args:
                key = n.args[0]
            elif isinstance(n, ast.Compare) and isinstance(n.ops[0], (ast.In, ast.NotIn)) \
                    and not isinstance(n.comparators[0], (ast.Constant, ast.Tuple, ast.List, ast.Set)):
                key = n.left
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                found.append(key.value)
            elif isinstance(key, ast.Name) and id(key) in looped:
                found += looped[id(key)]
    return tuple(dict.fromkeys(found))[:8]


def _loop_literals(node: ast.AST) -> dict[int, list[str]]:
    """id of each read of a `for NAME in (<string literals>)` variable inside its loop -> those strings."""
    out: dict[int, list[str]] = {}
    for loop in ast.walk(node):
        if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name) \
                and isinstance(loop.iter, (ast.Tuple, ast.List, ast.Set)) and loop.iter.elts \
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in loop.iter.elts):
            strings = [e.value for e in loop.iter.elts]
            for stmt in loop.body:
                for n in ast.walk(stmt):
                    if isinstance(n, ast.Name) and n.id == loop.target.id and isinstance(n.ctx, ast.Load):
                        out[id(n)] = strings
    return out


def constant_int(node: ast.AST) -> int | None:
    """The int an expression of int literals evaluates to (`60 * 1024` -> 61440), else None."""
    return _constant_int(node)


def _constant_int(node: ast.AST, names: dict = {}) -> int | None:
    """constant_int, where `names` (name -> value) are constants too."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, ast.Name):
        v = names.get(node.id)
        return v if type(v) is int else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _constant_int(node.operand, names)
        return None if v is None else -v
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.LShift, ast.Pow)):
        left, right = _constant_int(node.left, names), _constant_int(node.right, names)
        if left is None or right is None or (isinstance(node.op, ast.Pow) and not 0 <= right <= 64) \
                or (isinstance(node.op, ast.LShift) and not 0 <= right <= 64) or (isinstance(node.op, ast.FloorDiv) and not right):
            return None
        ops = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__, ast.FloorDiv: int.__floordiv__,
               ast.LShift: int.__lshift__, ast.Pow: int.__pow__}
        return ops[type(node.op)](left, right)
    return None
