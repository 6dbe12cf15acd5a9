"""What a component is made of: its fields (each with what the owner passes for it), its moved
state, its methods, and where the owner builds it. Decided by `analysis.infer` from the owner,
or read back from a tree where step 1 is done (`from_tree`), so that each step can start there.

A field is one of:
- "value":    `tp_rank=self.tp_rank`, an owner attribute never rebound once the component is
              built; the moved code's `self.tp_rank...` reads it;
- "getter":   `get_model=lambda: self.model`, for a value the owner rebinds later (a chain read
              `self.model_config.model_path` is one getter named after its last attribute); the
              moved code calls `self.get_model()` where it read `self.model`;
- "callback": `flush_cache=self.flush_cache`, an owner method the moved code calls;
- "owner":    `runner=self` (`--pass-owner`), the owner whole: every other `self.X` of the moved
              code reads `self.runner.X`;
- "state":    `_weights_send_group: dict = field(default_factory=dict)`, an attribute only the
              moved code uses, initialised in `__init__` (the default is that value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class Field:
    name: str  # in the component
    kind: str  # "value", "getter", "callback", "owner", "state"
    source: str  # what the owner passes / the chain read: "self.tp_rank", "self.model_config.model_path", "self"
    annotation: str = "Any"
    default: Optional[str] = None  # "state": the default as the class body writes it
    init: str = ""  # "state": the owner's initialisation statement, as it was (`self._x = {}`)

    @property
    def chain(self) -> str:
        """The owner expression the field stands for in the moved code (`self.model` for get_model)."""
        return self.source

    @property
    def argument(self) -> str:
        """What the owner passes for it when building the component."""
        if self.kind == "getter":
            return f"lambda: {self.source}"
        return self.source


@dataclass
class Design:
    owner: str  # the owner class
    component: str  # the component class
    target_module: str  # where it is defined
    attr: str  # the owner's attribute holding it
    methods: list[str]  # moved, in the owner's order (helpers included)
    helpers: list[str] = field(default_factory=list)  # private methods moving along
    fields: list[Field] = field(default_factory=list)
    frozen: bool = False

    @property
    def builder(self) -> str:
        return f"init_{self.attr}"

    def by_kind(self, kind: str) -> list[Field]:
        return [f for f in self.fields if f.kind == kind]

    def field_named(self, name: str) -> Optional[Field]:
        return next((f for f in self.fields if f.name == name), None)

    @property
    def state(self) -> list[Field]:
        return self.by_kind("state")

    @property
    def owner_field(self) -> Optional[Field]:
        return next(iter(self.by_kind("owner")), None)
