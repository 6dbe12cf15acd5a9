"""The declared type of each key one version reads (pysource.declared), for the world's first options.

The roots are what the entry reads: `self` is an instance of the class under test, `local:NAME`
the parameter NAME of the method holding the call site (or of the method itself, called
directly), `arg:NAME` (a component's sequence) the parameter NAME of a moved method. A key below a declared one is declared by it: `self.server_args.tp_size` by the field
`tp_size` of the class `self.server_args` is declared to be, `local:sizes[0]` by the item type of
`sizes`, `local:overrides['alpha']` by the value type of `overrides`. Anything else (a call's
result, a module global, an environment variable) is undeclared, and keeps the world's default.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from pysource.declared import Declared, InstanceOf, LiteralOf, NoneValue, OneOf, Scalar, attribute, parameter
from pysource.checkout import Checkout
from pysource.extraction import Extraction
from pysource.receivers import Program
from equivalence.engine.load.devices import torch_keys
from equivalence.engine.world.typed import instance_of, item_shape, typed_options


# What the standard library declares the machine reads the world answers (their typeshed stubs):
# `socket.gethostname()` is a str, so `path.replace("%h", socket.gethostname())` gets past the
# str method that a stand-in fails in (no demand can be heard from inside a builtin).
MACHINE_READS = {
    **{f"{name}()": Scalar("str") for name in (
        "socket.gethostname", "socket.getfqdn", "platform.system", "platform.machine", "platform.node",
        "platform.release", "platform.version", "platform.processor", "platform.platform",
        "platform.python_version", "os.getcwd", "getpass.getuser", "os.getlogin")},
    **{f"{name}()": Scalar("int") for name in ("os.getpid", "os.getppid", "os.getuid", "os.getgid", "time.time_ns",
                                                "time.monotonic_ns", "time.perf_counter_ns")},
    **{f"{name}()": Scalar("float") for name in ("time.time", "time.monotonic", "time.perf_counter",
                                                  "time.process_time")},
    "os.cpu_count()": OneOf((Scalar("int"), NoneValue())),
}


def _says_less(shape) -> bool:
    """A declaration that gives no value torch takes: a str (the placeholder "x"), a torch class
    (`device: torch.device`, `dtype: torch.dtype`: nothing to build), or None besides."""
    arms = shape.arms if isinstance(shape, OneOf) else (shape,)
    return all(a == Scalar("str") or a == NoneValue() or isinstance(a, InstanceOf) and a.qualname.startswith("torch.")
               for a in arms)


def torch_declares(kind: str) -> OneOf:
    """A device torch takes (`torch.device | str | None`): one this machine has, and None (torch's
    default); a dtype: torch.float32, and None."""
    import torch  # (the version loader imports it first: the command line starts without it)
    return OneOf((LiteralOf(("cpu",) if kind == "device" else (torch.float32,)), NoneValue()))


class DeclaredKeys:
    """One version's declarations, asked key by key (each answered once)."""

    def __init__(self, files: Checkout, source_rel: str, class_name: str,
                 parameters: dict[str, tuple[str, ast.AST]]):
        """`parameters`: a root key (`local:NAME`, `arg:NAME`) -> (the file, relative, of the
        function whose parameter NAME it is, that function)."""
        # the version's files as a checkout of its package (Checkout.at names none: a class's
        # module is then found by its name), at absolute paths (the program joins them)
        self.root = root = Path(files.package_root).resolve()
        files = dataclasses.replace(files, root=root, package_root=root, package=source_rel.split("/")[0],
                                    _modules=None, _tops=None)
        self.program = Program(files)
        module = files.module_of(root / source_rel)
        self.cls = InstanceOf(f"{module}.{class_name}") if module else None
        self.parameters = parameters
        self.torch_keys: dict[str, set[str]] = {}  # "device"/"dtype" -> keys the code hands torch as such (devices.py)
        self.known: dict[str, Declared | None] = {}

    @classmethod
    def of_extraction(cls, ext: Extraction) -> "DeclaredKeys":
        """The entry's free names are parameters of the method holding the first call site, else
        of the method itself, called directly."""
        entry = _entry_function(ext)
        names = [a.arg for a in (*entry.args.posonlyargs, *entry.args.args, *entry.args.kwonlyargs)] if entry else []
        out = cls(ext.files, ext.source_rel, ext.class_name, {f"local:{n}": (ext.source_rel, entry) for n in names})
        out.torch_keys = torch_keys(ext)
        return out

    def options(self, key: str, strings: tuple = (), items: tuple = (), lengths: tuple = ()) -> list[tuple] | None:
        """The key's options from its declaration, or None (undeclared, or nothing to build)."""
        declared = self.declared(key)
        return None if declared is None else typed_options(declared, strings, items, lengths)

    def declared(self, key: str) -> Declared | None:
        if key not in self.known:
            self.known[key] = None  # a key reached again while it is worked out declares nothing
            self.known[key] = self._declared(key)
        return self.known[key]

    def _declared(self, key: str) -> Declared | None:
        machine = MACHINE_READS.get(key)
        if machine is not None:
            return Declared(machine)
        found = self._declared_by_code(key)
        for kind, keys in self.torch_keys.items():
            if key in keys and (found is None or _says_less(found.shape)):
                return Declared(torch_declares(kind))  # what torch's signatures take there, the code saying less
        return found

    def _declared_by_code(self, key: str) -> Declared | None:
        if key == "self":
            return Declared(self.cls) if self.cls is not None else None
        if key in self.parameters:
            rel, fn = self.parameters[key]
            f = self.program.file(self.root / rel)
            return parameter(self.program, f, fn, key.partition(":")[2]) if f is not None else None
        parent, part = split_key(key)
        if parent is None:
            return None
        above = self.declared(parent)
        if above is None:
            return None
        if isinstance(part, str):  # an attribute
            qualname = instance_of(above.shape)
            return attribute(self.program, qualname, part) if qualname else None
        shape = item_shape(above.shape, part[0])
        return Declared(shape) if shape is not None else None


def split_key(key: str) -> tuple[str | None, str | tuple | None]:
    """(the key above, the attribute name) for `A.name`, (the key above, (index,)) for `A[index]`
    with a literal index; (None, None) for anything else (a call's result, a root)."""
    if key.endswith("]"):
        depth = 0
        for i in range(len(key) - 1, -1, -1):
            depth += {"]": 1, "[": -1}.get(key[i], 0)
            if depth == 0:
                try:
                    index = ast.literal_eval(key[i + 1:-1])
                except (ValueError, SyntaxError):
                    return None, None
                return (key[:i], (index,)) if i else (None, None)
        return None, None
    parent, dot, name = key.rpartition(".")
    if not dot or not name.isidentifier() or not parent:
        return None, None
    return parent, name


def _entry_function(ext: Extraction) -> ast.AST | None:
    """The method whose parameters the entry's free names are: the one holding the first call
    site, else the method itself."""
    if ext.call_sites:
        name = ext.call_sites[0].method
        return next((f for f in ext.class_node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and f.name == name), None)
    return ext.method
