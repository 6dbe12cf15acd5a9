"""The description of one extraction: which method, where it goes, what becomes what."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


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
    annotation: str


@dataclass(frozen=True)
class Recipe:
    class_name: str
    method_name: str
    source_file: str  # relative to the folder holding the package, e.g. sglang/srt/.../x.py
    target_module: str  # dotted, e.g. sglang.srt.mem_cache.kv_cache_dtype
    reads: tuple[Read, ...]
    result: Result
    record: Record
    narrow: Narrow
    return_annotation: str
    moved_globals: tuple[str, ...] = ()
    subjects: dict[int, str] = field(default_factory=dict)

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
        """The name model_runner binds the target module to."""
        return self.target_module.rpartition(".")[2]
