"""The description of one extraction: which method, where it goes, what becomes what.

A recipe either lets the engine infer parameters and results from the method body (`python -m
codemods.extract_method`) or spells everything out and brings the analysis that accepts only
what it spells (`analysis`: the #31147 preset, whose mapped reads, result and record are the
only `self.` uses it accepts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional


@dataclass(frozen=True)
class Read:
    """A read of `source` in the method becomes `replacement`, fed by keyword `param`.

    `source` is a dotted chain rooted at `self`, optionally ending in `()` (a call
    without arguments). The wrapper passes `argument` (default: `source`).
    """

    source: str
    param: str
    annotation: Optional[str] = None
    replacement: Optional[str] = None
    argument: Optional[str] = None

    @property
    def new_text(self) -> str:
        return self.replacement or self.param

    @property
    def arg_text(self) -> str:
        return self.argument or self.source


@dataclass(frozen=True)
class Result:
    """Writes to `attribute` become the local `local`, returned and assigned back."""

    attribute: str
    local: str


@dataclass(frozen=True)
class Record:
    """Writes to `attribute` and calls `method(x)` become `local = x`, recorded by the caller."""

    local: str
    annotation: str
    attribute: str
    method: str


@dataclass(frozen=True)
class Narrow:
    """Step 4: parameter `param`, read only as `param.attribute`, becomes `new_param`."""

    param: str
    attribute: str
    new_param: str
    annotation: Optional[str] = None


@dataclass(frozen=True)
class Recipe:
    class_name: str
    method_name: str
    source_file: str  # relative to the folder holding the package, e.g. sglang/srt/.../x.py
    target_module: str  # dotted, e.g. sglang.srt.mem_cache.kv_cache_dtype
    function_name: str = ""  # the moved function's name; default: the method's
    # a recipe that spells everything out: (func, module, text, class, recipe, path, line_of) ->
    # Rewrites, accepting only `reads`, `results` and `record` (anything else refused)
    analysis: Optional[Callable] = field(default=None, compare=False)
    reads: tuple[Read, ...] = ()
    results: tuple[Result, ...] = ()  # with an `analysis`; inferred otherwise
    record: Optional[Record] = None
    renames: tuple[tuple[str, str], ...] = ()  # inferred parameter X is named NEW
    pass_self: Optional[str] = None  # the function takes the instance whole under this name
    narrows: tuple[Narrow, ...] = ()
    return_annotation: Optional[str] = None
    moved_globals: tuple[str, ...] = ()
    new_target: bool = False  # the target module must not exist before step 2 (#31147 creates it)
    package_inits: bool = True  # a new folder on the way to the target gets an empty __init__.py
    # a new target module starts with `from __future__ import annotations` (names of the package
    # that only annotations use are then imported under `if TYPE_CHECKING:`)
    future_annotations: bool = True
    tidy_globals: bool = True  # step 4 also drops private module globals only the moved code used
    subjects: dict[int, str] = field(default_factory=dict)  # commit subjects; default: `subject()`, step 4's
    no_wrapper: bool = False  # --no-wrapper: step 3 leaves the call sites calling the function, no method
    positional: bool = False  # --positional: step 3 makes the function's parameters positional-or-keyword
    # several methods in one run (`group`): the methods of the group, still in the class, whose calls of
    # this one step 3 leaves calling the function (they move next); the functions earlier methods of
    # the group became in the target, which the moved code calls by name (`ALIAS.f(...)` -> `f(...)`)
    group_callers: tuple[str, ...] = ()
    group_functions: tuple[str, ...] = ()
    # --write-back ATTR[=FLAG]: `self.ATTR`, written on some paths as their last effect, becomes the
    # function's bool result; callers write it (`if f(...): self.ATTR = VALUE`, through FLAG if given)
    write_back: Optional[tuple[str, str]] = None
    # a `@property` (`properties`, found by the run that does step 1): its reads `x.METHOD` are its calls
    is_property: bool = False
    # --leave-overrides: --no-wrapper on a property goes on past subclasses overriding it (listed, left unread)
    leave_overrides: bool = False

    @property
    def infer(self) -> bool:
        """Whether parameters and results are inferred from the method body."""
        return self.analysis is None

    @property
    def function(self) -> str:
        return self.function_name or self.method_name

    @property
    def qualified(self) -> str:
        return f"{self.class_name}.{self.method_name}"

    @property
    def source_module(self) -> str:
        return self.source_file[: -len(".py")].replace("/", ".")

    @property
    def target_file(self) -> str:
        return self.target_module.replace(".", "/") + ".py"

    @property
    def target_package(self) -> str:
        return self.target_module.rpartition(".")[0]

    @property
    def target_alias(self) -> str:
        """The name the source module binds the target module to."""
        return self.target_module.rpartition(".")[2]

    @property
    def callee(self) -> str:
        """What call sites call after step 2: `module.function`."""
        return f"{self.target_alias}.{self.function}"

    def name_for(self, attribute: str) -> str:
        """The parameter or local an inferred `self.attribute` becomes (`--rename`)."""
        return dict(self.renames).get(attribute, attribute)

    def subject(self, step: int) -> str:
        """Steps 1-3's commit subjects (step 4's says what it did: `pipeline`)."""
        if step in self.subjects:
            return self.subjects[step]
        as_name = f" as {self.function}" if self.function != self.method_name else ""
        third = f"Restore a {self.qualified} wrapper"
        if self.no_wrapper:
            third = f"Call {self.callee} where {self.qualified} was called"
        if self.positional:
            third += f"{', with' if self.no_wrapper else ' and give'} {self.function} positional-or-keyword parameters"
        return {
            1: f"Make {self.qualified} a keyword-only static method",
            2: f"Move {self.method_name} into {self.target_file}{as_name}",
            3: third,
        }[step]
