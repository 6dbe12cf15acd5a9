"""Where one version of a tree keeps the logic of `CLASS.METHOD`, found by `ast` alone.

The shapes an extraction goes through (`codemods.extract_method`'s steps, or upstream's by hand):
- "method":  the original instance method; call sites call `self.METHOD(...)`;
- "static":  a keyword-only `@staticmethod` in place; call sites `self.Y = self.METHOD(p=...)`;
- "moved":   no method; call sites call `alias.FUNCTION(...)`, a module-level function of the
             target module (`from pkg import alias` in the source module);
- "wrapper": an instance method calling `alias.FUNCTION(...)` (or the imported symbol,
             `FUNCTION(...)`) and applying its results; call sites call `self.METHOD(...)`.
Nothing is imported or run. Bad input raises `LocateError`, whose message starts with file:line.
"""

from __future__ import annotations

import ast
import builtins
import difflib
from dataclasses import dataclass, field
from pathlib import Path

from pysource.names import function_locals, innermost, outer_reads, read_before_bound, using_bound_locals
from pysource.checkout import Checkout
from pysource.inheritance import Found, Hierarchy, InheritanceError
from pysource.modules import Binding, imports_in, module_level_statements, module_name, source_segment

REEXPORT_DEPTH = 3  # `from .impl import f` in a package's __init__: followed this many times


class LocateError(Exception):
    """The version does not hold the method or its extraction as expected (file:line: why)."""


@dataclass
class ResultUse:
    """How the statement holding the call applies its result."""

    how: str  # "discard", "assign", "return" or "expression" (used inside a larger expression)
    targets: list[str] = field(default_factory=list)  # "assign": each target's source, by position
    target_nodes: list[ast.expr] = field(default_factory=list)
    unpacked: bool = False  # a tuple result unpacked into `targets`
    follow_up: list[ast.stmt] = field(default_factory=list)  # later statements using a bound local


@dataclass
class FunctionCall:
    """The call of the extracted function (or, in the "static" shape, of the static method)."""

    node: ast.Call
    statement: ast.stmt  # the innermost statement holding it
    where: str  # "wrapper" or "call site"
    method: str  # the class method it sits in
    file_rel: str
    keywords: dict[str, str]  # keyword -> source of the expression passed
    keyword_nodes: dict[str, ast.expr]
    positional: list[ast.expr]
    result: ResultUse
    preamble: list[ast.stmt]  # statements before it in its block (locals its arguments may read)


@dataclass
class CallSite:
    """A use of the method (or of the extracted function) elsewhere in the class."""

    method: str  # the enclosing method
    statements: list[ast.stmt]  # the innermost statement calling, plus those using a local it bound
    call: ast.Call
    calls: str  # "method" (self.METHOD(...)) or "function" (alias.FUNCTION(...))
    free_names: list[str]  # locals of the enclosing method the statements read (self excluded)

    @property
    def line(self) -> int:
        return self.statements[0].lineno


@dataclass
class Extraction:
    files: Checkout  # the version's files
    source_rel: str
    class_name: str
    method_name: str
    function_name: str
    class_node: ast.ClassDef
    method: ast.FunctionDef | None
    method_kind: str | None  # "instance", "static", "class"
    wrapper: ast.FunctionDef | None  # the method, when it calls the extracted function
    alias: str | None  # the name the source module calls the function through
    target_module: str | None
    target_rel: str | None
    function: ast.FunctionDef | None  # the module-level function in the target
    call_sites: list[CallSite]
    call: FunctionCall | None
    function_name_inferred: bool = False  # no --name given: the wrapper's only keyword-only call
    is_property: bool = False  # the method is a `@property`: its reads `self.METHOD` are its call sites
    # the method is not CLASS's own: the first class of CLASS's order defining it (`method` is its
    # def, in file `method_rel`); run as CLASS's method on an instance of CLASS
    inherited: Found | None = None

    @property
    def method_rel(self) -> str:
        """The file holding `method`: CLASS's, or the base's it is inherited from."""
        return self.inherited.rel if self.inherited is not None else self.source_rel

    @property
    def found_where(self) -> str:
        """Where the method was found: `defined by CLASS (module:line)` or `inherited from BASE (module:line)`."""
        if self.inherited is not None:
            return f"inherited from {self.inherited.describe()}"
        if self.method is not None:
            return f"defined by {self.class_name} ({module_name(self.source_rel)}:{self.method.lineno})"
        return f"not a method of {self.class_name}: {self.shape}"


    @property
    def shape(self) -> str:
        if self.function is None:
            return "static" if self.method_kind == "static" else "method"
        return "wrapper" if self.wrapper is not None else "moved"

    @property
    def core(self) -> tuple[ast.FunctionDef, str]:
        """The function holding the logic and its file: the moved function, else the method."""
        if self.function is not None:
            return self.function, self.target_rel
        return self.method, self.method_rel

    def text(self, rel: str) -> str:
        return self.files.text(rel)


_NO_CALL_TO_READ = ("The proof reads how the method's arguments reach the function off a call of it in the class "
                    "(the wrapper, or a call site), and this tree calls it only from other modules (--no-wrapper "
                    "on a method that only other modules call)")


def locate(root: Path, source_rel: str, class_name: str, method_name: str,
           function_name: str | None = None, overrides: dict[str, str] | None = None) -> Extraction:
    """Find CLASS.METHOD's logic in the tree at `root` (which holds the top-level package);
    `overrides` maps a file (relative to root) to the text to use instead of the file's."""
    tree = Checkout.at(root, overrides)
    if not tree.exists(source_rel):
        raise LocateError(f"{tree.path(source_rel)}: no such file")
    module = _parse(tree, source_rel)
    cls = _one(_class_defs(module, class_name), tree.path(source_rel), f"class {class_name}")
    if cls is None:
        raise LocateError(f"{tree.path(source_rel)}: no class {class_name} at module level")
    method = _one([n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and n.name == method_name], tree.path(source_rel), f"{class_name}.{method_name}")
    kind = _method_kind(method) if method is not None else None
    finder = _CallFinder(tree, source_rel, module, cls)
    name, inferred = function_name or method_name, False
    calls = finder.function_calls(name)
    if not calls and function_name is None and kind == "instance":
        name, calls = finder.infer_function(method)
        inferred = bool(calls)
    target = finder.single_target(calls, name)
    inherited = None
    if method is None and target is None and function_name in (None, method_name):
        inherited = _inherited(tree, source_rel, cls, method_name)
        if inherited is not None:
            method, name = inherited.member, method_name
            kind = _method_kind(method)
    if method is None and target is None:
        found = _imported_function(tree, module, source_rel, name)
        if found is not None:
            raise LocateError(f"{tree.path(source_rel)}:{cls.lineno}: {class_name} has no method {method_name} and "
                              f"no longer calls {found}: not proven. {_NO_CALL_TO_READ}")
        elsewhere = _defined_elsewhere(tree, source_rel, name)
        if elsewhere:
            raise LocateError(f"{tree.path(source_rel)}:{cls.lineno}: {class_name} has no method {method_name} and "
                              f"calls no function {name}, which {', '.join(elsewhere)} define(s) at module level: "
                              f"if the method went there, not proven. {_NO_CALL_TO_READ}")
        close = difflib.get_close_matches(method_name, [n.name for n in cls.body if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef))], n=3)
        raise LocateError(f"{tree.path(source_rel)}:{cls.lineno}: {class_name} has no method {method_name} "
                          f"and no call of an extracted {name}(...)"
                          + (f": did you mean {' or '.join(close)}?" if close else
                             "" if function_name else " (if the function has another name, pass --name FUNCTION)"))
    ext = Extraction(tree, source_rel, class_name, method_name, name, cls, method, kind,
                     wrapper=None, alias=None, target_module=None, target_rel=None, function=None,
                     call_sites=[], call=None, function_name_inferred=inferred, inherited=inherited)
    if target is not None and kind != "static":
        ext.target_module, ext.alias = target
        ext.target_rel, ext.function = _find_function(tree, ext.target_module, name, calls[0])
        in_method = [c for c in calls if method is not None and c.method == method_name]
        ext.wrapper = method if in_method else None
    ext.is_property = method is not None and _is_property(method)
    ext.call_sites = finder.call_sites(method_name, name if ext.function is not None else None, ext.is_property)
    ext.call = _the_call(ext, calls)
    return ext


def _inherited(tree: Checkout, source_rel: str, cls: ast.ClassDef, method_name: str) -> Found | None:
    """The class CLASS inherits `method_name` from, followed through its bases in the checkout (the
    first of its method resolution order defining it); None when none does. LocateError when the
    order cannot be told."""
    try:
        return Hierarchy(tree, source_rel.split("/")[0]).defining_class(
            source_rel, cls.name, method_name, f"{tree.path(source_rel)}:{cls.lineno}")
    except InheritanceError as e:
        raise LocateError(f"{e}; {cls.name} has no method {method_name} of its own") from None


def _imported_function(tree: Checkout, module: ast.Module, rel: str, name: str) -> str | None:
    """`pkg.mod.name` when the module imports a module `mod` (`from pkg import mod`) of the tree
    that defines a module-level function `name`."""
    for binding in imports_in(module_level_statements(module.body), rel).values():
        target = tree.module_file(binding.qualname)
        if binding.from_module is None or target is None or not tree.exists(target):
            continue
        try:
            defines = any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name
                          for s in module_level_statements(tree.parse(target).body))
        except (SyntaxError, ValueError):
            continue
        if defines:
            return f"{binding.qualname}.{name}"
    return None


def _defined_elsewhere(tree: Checkout, source_rel: str, name: str) -> list[str]:
    """The files of the tree, but `source_rel`, that define a module-level function `name`."""
    needle = f"def {name}(".encode()
    out = []
    for path in tree.select(lambda data: needle in data, mentioning=needle):
        if str(path) == tree.path(source_rel):
            continue
        try:
            if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name
                   for s in module_level_statements(tree.parse(path).body)):
                out.append(tree.relative(path))
        except (SyntaxError, ValueError):
            continue
    return sorted(out)


def _statement_calls(fn: ast.FunctionDef) -> list[ast.Call]:
    """The calls `fn`'s own statements make: an expression, a `return`'s or an assignment's value."""
    values = [s.value for s in fn.body if isinstance(s, (ast.Expr, ast.Return, ast.Assign, ast.AnnAssign))]
    return [v for v in values if isinstance(v, ast.Call)]


def _parse(tree: Checkout, rel: str) -> ast.Module:
    return tree.parse_or_raise(rel, LocateError)


def _class_defs(module: ast.Module, name: str) -> list[ast.ClassDef]:
    return [n for n in module_level_statements(module.body) if isinstance(n, ast.ClassDef) and n.name == name]


def _one(nodes: list, path: str, what: str):
    if len(nodes) > 1:
        lines = ", ".join(str(n.lineno) for n in nodes)
        raise LocateError(f"{path}:{nodes[1].lineno}: {what} is defined {len(nodes)} times (lines {lines})")
    return nodes[0] if nodes else None


_SIMPLE = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Pass, ast.Import, ast.ImportFrom)


def _passed_through(arg: ast.expr, own: set[str]) -> bool:
    """`arg` is what a wrapper hands on: one of the method's own parameters or a `self.` chain."""
    if isinstance(arg, ast.Starred):
        return False
    while isinstance(arg, ast.Attribute):
        arg = arg.value
    return isinstance(arg, ast.Name) and arg.id in own


def _straight_line(fn: ast.FunctionDef) -> bool:
    """Whether `fn`'s body is simple statements only (no branch, loop, `try` or `with`), a `return`
    at most as its last."""
    body = fn.body
    return all(isinstance(s, _SIMPLE) for s in body[:-1]) and bool(body) and isinstance(body[-1], (*_SIMPLE, ast.Return))


def _is_property(fn: ast.FunctionDef) -> bool:
    """`fn` is under exactly one decorator, `@property` (a read of it runs it)."""
    return [ast.unparse(d) for d in fn.decorator_list] == ["property"]


def _method_kind(fn: ast.FunctionDef) -> str:
    names = {d.id for d in fn.decorator_list if isinstance(d, ast.Name)}
    return "static" if "staticmethod" in names else "class" if "classmethod" in names else "instance"


def _find_function(tree: Checkout, dotted: str, name: str, call: "_Found") -> tuple[str, ast.FunctionDef]:
    """The module-level def `name` of module `dotted`, following re-exports (`from .x import name`)."""
    for _ in range(REEXPORT_DEPTH + 1):
        rel = tree.module_file(dotted)
        module = _parse(tree, rel)
        statements = list(module_level_statements(module.body))
        defs = [s for s in statements if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name]
        found = _one(defs, tree.path(rel), f"function {name}")
        if found is not None:
            return rel, found
        binding = imports_in(statements, rel).get(name)
        if binding is None or binding.from_module is None or tree.module_file(binding.from_module) is None:
            break
        dotted, name = binding.from_module, binding.qualname.rpartition(".")[2]
    raise LocateError(f"{tree.path(rel)}: no module-level function {name} "
                      f"(called at {call.where})")


def _the_call(ext: Extraction, calls: list["_Found"]) -> FunctionCall | None:
    """The call the substitution map comes from: the wrapper's, else the first call site's."""
    if ext.shape == "method":
        return None
    if ext.shape == "static":
        sites = [s for s in ext.call_sites if s.calls == "method"]
        found = [_Found(s.call, s.method, None, "") for s in sites]
        where = "call site"
    else:
        found = calls
        where = "wrapper" if ext.wrapper is not None else "call site"
        if ext.wrapper is not None:
            found = [c for c in calls if c.method == ext.method_name]
    if not found:
        return None
    first = found[0]
    fn = next(n for n in ext.class_node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
              and n.name == first.method)
    block, index = next(innermost(fn.body, lambda n: n is first.node))
    statement = block[index]
    keywords = {k.arg: k.value for k in first.node.keywords if k.arg is not None}
    text = ext.text(ext.source_rel)
    return FunctionCall(
        node=first.node, statement=statement, where=where, method=first.method, file_rel=ext.source_rel,
        keywords={k: source_segment(text, v) for k, v in keywords.items()}, keyword_nodes=keywords,
        positional=list(first.node.args), result=_result_use(statement, first.node, block[index + 1:]),
        preamble=block[:index],
    )


def _result_use(statement: ast.stmt, call: ast.Call, after: list[ast.stmt]) -> ResultUse:
    follow_up = using_bound_locals(statement, after)
    if isinstance(statement, ast.Expr) and statement.value is call:
        return ResultUse("discard", follow_up=follow_up)
    if isinstance(statement, ast.Return) and statement.value is call:
        return ResultUse("return", follow_up=follow_up)
    target = None
    if isinstance(statement, ast.Assign) and statement.value is call and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign) and statement.value is call:
        target = statement.target
    if target is None:
        return ResultUse("expression", follow_up=follow_up)
    unpacked = isinstance(target, (ast.Tuple, ast.List))
    nodes = list(target.elts) if unpacked else [target]
    return ResultUse("assign", [ast.unparse(n) for n in nodes], nodes, unpacked, follow_up)


@dataclass
class _Found:
    node: ast.Call
    method: str  # the class method holding the call
    target: tuple[str, str] | None  # (module, alias) the callee resolves to
    where: str  # file:line


class _CallFinder:
    """Calls in the class's methods, with their callees resolved through the source's imports."""

    def __init__(self, tree: Checkout, rel: str, module: ast.Module, cls: ast.ClassDef):
        self.tree, self.rel, self.cls = tree, rel, cls
        self.statements = list(module_level_statements(module.body))
        self.imports = imports_in(self.statements, rel)
        self.module_defs = {s.name for s in self.statements if isinstance(s, ast.FunctionDef)}
        self.methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        self.lines = tree.text(rel).splitlines(keepends=True)
        self._module_names: set[str] | None = None

    @property
    def module_names(self) -> set[str]:
        """Every name some assignment of the module (in any of its scopes) binds, and its defs."""
        if self._module_names is None:
            self._module_names = {t.id for s in self.statements for t in ast.walk(s)
                                  if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
            self._module_names |= {s.name for s in self.statements if isinstance(s, (ast.FunctionDef, ast.ClassDef))}
        return self._module_names

    def _spelling(self, fn: ast.FunctionDef, words: set[str]) -> bool:
        """Whether `fn`'s text spells one of `words` (a method that does not cannot call them)."""
        text = "".join(self.lines[fn.lineno - 1:fn.end_lineno])
        return any(w in text for w in words)

    def _names_for(self, name: str) -> set[str]:
        """`name` and the local names the module's imports bind to a `name` (`from m import name as g`)."""
        return {name, *(n for n, b in self.imports.items() if b.qualname.rpartition(".")[2] == name)}

    def _imports(self, fn: ast.FunctionDef) -> dict[str, Binding]:
        local = [n for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
        return {**self.imports, **imports_in(local, self.rel)}

    def _resolve(self, func: ast.expr, imports: dict[str, Binding], receiver: str = "self"
                 ) -> tuple[str, str] | None | str:
        """(module, alias) when the callee is a function of a module of this tree; None when it is
        no module's function (a method, a builtin, another package's function); "unbound" when the
        name it is reached through would fail to import (bound nowhere, or its module is missing)."""
        if isinstance(func, ast.Name):
            binding = imports.get(func.id)
            if binding is None:
                return (module_name(self.rel), func.id) if func.id in self.module_defs else None
            return self._symbol(binding)
        chain, value = [], func.value if isinstance(func, ast.Attribute) else None
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id in ("self", receiver):  # (`cls` of a class method)
            return None
        binding = imports.get(value.id)
        if binding is None:
            return None if value.id in self.module_names or hasattr(builtins, value.id) else "unbound"
        if not self.tree.module_file(binding.qualname) and binding.from_module is not None:
            return "unbound" if self._symbol(binding) == "unbound" else None  # an attribute of an object
        dotted = ".".join([binding.qualname, *reversed(chain)])
        if self.tree.module_file(dotted):
            return dotted, ast.unparse(func.value)
        return "unbound" if self._ours(binding.qualname) and not self.tree.module_file(binding.qualname) else None

    def _symbol(self, binding: Binding) -> tuple[str, str] | None | str:
        """`from m import X` (X no module): (m, local name) when m is a module of this tree binding X."""
        m = binding.from_module
        if m is None or self.tree.module_file(binding.qualname):
            return None
        if not self.tree.module_file(m):
            return "unbound" if self._ours(m) else None
        return (m, binding.name) if binding.qualname.rpartition(".")[2] in self.tree.bound_names(self.tree.module_file(m)) else "unbound"

    def _ours(self, dotted: str) -> bool:
        return dotted.split(".")[0] == module_name(self.rel).split(".")[0]

    def function_calls(self, name: str) -> list[_Found]:
        """Calls of a module-level function `name`, through an alias or the imported symbol."""
        out = []
        words = self._names_for(name)
        for fn in self.methods:
            if not self._spelling(fn, words):
                continue
            imports = self._imports(fn)
            # in source order, as call_sites lists them: the first is the call the runs execute
            calls = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
            for node in calls:
                if _callee_name(node, imports) != name:
                    continue
                target = self._resolve(node.func, imports, _receiver(fn))
                where = f"{self.tree.path(self.rel)}:{node.lineno}"
                if target == "unbound":
                    root = ast.unparse(node.func).split(".")[0]
                    raise LocateError(f"{where}: {ast.unparse(node.func)}(...): {root} is not a module of "
                                      f"this tree (no import of it resolves to a file under {self.tree.root})")
                if target is not None:
                    out.append(_Found(node, fn.name, target, where))
        return out

    def infer_function(self, method: ast.FunctionDef) -> tuple[str, list[_Found]]:
        """No function name given and none called by the method's name: the method's only call of a
        module-level function of another module that passes what a wrapper passes, when the method
        runs straight through as a wrapper does (a branch or an early `return` is logic of its own:
        0.5.23's `init_token_oracle` returns early, then calls `install_token_oracle_from_env(...)`).
        Only a call a statement makes (`f(...)`, `return f(...)`, `self.x = f(...)`): one inside
        another call's arguments is the method's own logic (0.5.19's `init_kv_cache_configurator`
        builds `KVCacheConfigurator(..., post_capture_kv_active=is_post_capture_kv_active(...))`).
        What a wrapper passes: keywords only, to a keyword-only function (the codemod's shape); or,
        to a function without positional-only parameters, each argument the method's own parameter
        (`self` among them) or a `self.` attribute chain (`--positional`, or upstream's hand:
        `handle_dcp_validation(self)`)."""
        if not _straight_line(method):
            return method.name, []
        imports = self._imports(method)
        own = {a.arg for a in [*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs]}
        found = []
        for node in _statement_calls(method):
            if not (node.args or node.keywords):
                continue
            target = self._resolve(node.func, imports)
            name = _callee_name(node, imports)
            if not (isinstance(target, tuple) and target[0] != module_name(self.rel) and name):
                continue
            fn = self._module_def(target[0], name)
            if fn is None or fn.args.posonlyargs:
                continue
            keyword_only = not node.args and not fn.args.args and fn.args.kwonlyargs
            if keyword_only or all(_passed_through(a, own) for a in [*node.args, *(k.value for k in node.keywords)]) \
                    and all(k.arg is not None for k in node.keywords):
                found.append((name, _Found(node, method.name, target, f"{self.tree.path(self.rel)}:{node.lineno}")))
        if len(found) != 1:
            return method.name, []
        return found[0][0], [found[0][1]]

    def _module_def(self, dotted: str, name: str) -> ast.FunctionDef | None:
        rel = self.tree.module_file(dotted)
        module = _parse(self.tree, rel)
        return next((s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == name), None)

    def single_target(self, calls: list[_Found], name: str) -> tuple[str, str] | None:
        targets = {c.target[0]: c for c in calls}
        if len(targets) > 1:
            a, b = list(targets.values())[:2]
            raise LocateError(f"{b.where}: {name} is called from two modules: {a.target[0]} ({a.where}) "
                              f"and {b.target[0]} ({b.where})")
        return calls[0].target if calls else None

    def call_sites(self, method_name: str, function_name: str | None, reads: bool = False) -> list[CallSite]:
        """`reads`: the method is a property, each read `self.METHOD` a call site (its `call` the read)."""
        out = []
        words = {method_name} | (self._names_for(function_name) if function_name else set())
        for fn in self.methods:
            if fn.name == method_name or not self._spelling(fn, words):
                continue
            self_name = fn.args.args[0].arg if fn.args.args else "self"
            imports = self._imports(fn)

            def kind(node):
                if reads and isinstance(node, ast.Attribute) and node.attr == method_name \
                        and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                        and node.value.id == self_name:
                    return "method"
                if not isinstance(node, ast.Call):
                    return None
                f = node.func
                if isinstance(f, ast.Attribute) and f.attr == method_name and isinstance(f.value, ast.Name) \
                        and f.value.id == self_name:
                    return "method"
                if function_name and _callee_name(node, imports) == function_name \
                        and isinstance(self._resolve(f, imports), tuple):
                    return "function"
                return None

            for block, i in innermost(fn.body, kind):
                statements = [block[i], *using_bound_locals(block[i], block[i + 1:])]
                call = next(n for n in ast.walk(block[i]) if kind(n))
                out.append(CallSite(fn.name, statements, call, kind(call), _free_names(fn, statements, self_name)))
        return out


def _receiver(fn: ast.FunctionDef) -> str:
    """The name a method's body reaches its instance (or class) through: its first parameter,
    unless it is a static method."""
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    return fn.args.args[0].arg if fn.args.args and not static else "self"


def _callee_name(call: ast.Call, imports: dict[str, Binding]) -> str | None:
    """The name of the function a call calls: `a.f(...)` -> f; `g(...)` with `from m import f as g` -> f."""
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    if isinstance(call.func, ast.Name):
        binding = imports.get(call.func.id)
        return binding.qualname.rpartition(".")[2] if binding else call.func.id
    return None


def _free_names(fn: ast.FunctionDef, statements: list[ast.stmt], self_name: str) -> list[str]:
    """Locals of `fn` (parameters, names it binds) that `statements` read without binding them."""
    return sorted(((outer_reads(statements) | read_before_bound(statements)) & function_locals(fn)) - {self_name})
