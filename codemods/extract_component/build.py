"""The code a design writes: the component class (fields, moved state, then its methods), the
owner's builder method `init_ATTR()`, and the imports the class's annotations need."""

from __future__ import annotations

import ast
import re
from typing import Sequence

import libcst as cst

from codemods.extract_component.design import Design, Field

TYPING = ("Any", "Callable", "Optional")


def decorator(design: Design) -> str:
    frozen = "frozen=True, " if design.frozen else ""
    return f"@dataclass({frozen}slots=True, kw_only=True)"


def field_line(f: Field) -> str:
    if f.kind == "state":
        return f"{f.name}: {f.annotation} = {f.default}"
    return f"{f.name}: {f.annotation}"


def class_code(design: Design, methods: Sequence[str] = ()) -> str:
    """The component class: its decorator, fields, then `methods` (each method's code, indented as
    a class member)."""
    lines = [decorator(design), f"class {design.component}:"]
    lines += [f"    {field_line(f)}" for f in design.fields]
    out = "\n".join(lines) + "\n"
    for m in methods:
        out += "\n" + m
    return out


def runtime_names(design: Design) -> dict[str, list[str]]:
    """{module: names} the class body needs from the standard library (`dataclasses`, `typing`)."""
    needed = {"dataclasses": ["dataclass"]}
    if any(f.default and f.default.startswith("field(") for f in design.fields):
        needed["dataclasses"].append("field")
    spelled = " ".join(f.annotation for f in design.fields)
    typing = [n for n in TYPING if re.search(rf"\b{n}\b", spelled)]
    if typing:
        needed["typing"] = typing
    return needed


def builder_code(design: Design) -> str:
    """`def init_ATTR(self): self.ATTR = COMPONENT(field=..., ...)` as a class member."""
    args = [f"{f.name}={f.argument}" for f in design.fields if f.kind != "state"]
    call = f"{design.component}({', '.join(args)})"
    return f"def {design.builder}(self):\n    self.{design.attr} = {call}\n"


def from_tree(cls: ast.ClassDef, builder: ast.FunctionDef, owner: str, target_module: str, attr: str) -> Design:
    """The design a tree holds: the component class `cls` (its fields, their defaults) and the
    owner's builder (what it passes for each field)."""
    passed: dict[str, ast.expr] = {}
    for n in ast.walk(builder):
        if isinstance(n, ast.Call) and _spells(n.func, cls.name):
            passed = {k.arg: k.value for k in n.keywords if k.arg}
    fields = []
    for s in cls.body:
        if not (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)):
            continue
        name = s.target.id
        annotation = ast.unparse(s.annotation)
        if name not in passed:
            fields.append(Field(name, "state", f"self.{name}", annotation,
                                ast.unparse(s.value) if s.value is not None else None))
            continue
        value = passed[name]
        if isinstance(value, ast.Lambda) and not value.args.args:
            fields.append(Field(name, "getter", ast.unparse(value.body), annotation))
        elif isinstance(value, ast.Name) and value.id == "self":
            fields.append(Field(name, "owner", "self", annotation))
        else:
            kind = "value"
            fields.append(Field(name, kind, ast.unparse(value), annotation))
    methods = [s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    frozen = any(isinstance(d, ast.Call) and any(k.arg == "frozen" and isinstance(k.value, ast.Constant)
                                                 and k.value.value for k in d.keywords) for d in cls.decorator_list)
    return Design(owner, cls.name, target_module, attr, methods, [], fields, frozen)


def _spells(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Attribute) and node.attr == name


def member(code: str, indent: str = "    ") -> cst.BaseStatement:
    """A class member parsed from `code` (its text at column 0)."""
    holder = cst.parse_module("class _C:\n" + "".join(f"{indent}{ln}" if ln.strip() else ln
                                                      for ln in code.splitlines(keepends=True)))
    return holder.body[0].body.body[0]
