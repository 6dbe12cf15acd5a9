"""Several methods of one class in one run: `CLASS.M1,M2,... TARGET.MODULE`.

Each method is extracted as alone, with the same options, one after the other in memory, each run
reading the tree as the earlier ones left it (`Overlay`): a method called by another of the group
first (`order`). Calls between them are rewired: step 3 of a method leaves the calls in the methods
of the group still to move calling the function (`Recipe.group_callers`: no `self.m2(...)` left
for the caller's step 1 to refuse), and step 2 of the caller, moving it into the module that now
defines that function, calls it by name (`Recipe.group_functions`: `ALIAS.m2(...)` -> `m2(...)`).

The plan is the runs' steps one after the other (four per method, one commit each with
`--commit`), the messages of each run, and every file's text before the first and after the
last. A method already extracted is said so and skipped; all of them: already applied.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.errors import AlreadyApplied, BadInput, CodemodError, Refusal
from codemods.core.plan import Plan
from codemods.extract_method.pipeline import STEPS
from codemods.extract_method.spec import MethodSpec, recipe_for


@dataclass
class Overlay(Context):
    """The run's context with some files' texts replaced by what the earlier runs left."""

    texts: dict[Path, str] = field(default_factory=dict)

    def read(self, path: Path) -> str:
        return self.texts[path] if path in self.texts else super().read(path)


def order(ctx: Context, spec: MethodSpec) -> tuple[list[str], dict[str, dict[str, int]], Path]:
    """(the group's methods, each after those of the group it calls (`self.m(...)`), else in the
    order given; {method: {method of the group it calls: the line}}, the class's file); refused
    when they call each other round."""
    first = recipe_for(ctx, replace(spec, methods=(), names={}))
    path = ctx.root / first.source_file
    tree = ast.parse(ctx.read(path))
    found = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == spec.class_name]
    members = {s.name: s for s in found[0].body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))} \
        if len(found) == 1 else {}
    calls: dict[str, dict[str, int]] = {}
    for m in spec.methods:
        body = members.get(m)
        called: dict[str, int] = {}
        for n in ast.walk(body) if body is not None else ():
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
                called[n.attr] = min(called.get(n.attr, n.lineno), n.lineno)
        calls[m] = {o: called[o] for o in spec.methods if o != m and o in called}
    out: list[str] = []
    visiting: list[str] = []

    def visit(m: str) -> None:
        if m in out:
            return
        if m in visiting:
            cycle = visiting[visiting.index(m):] + [m]
            raise Refusal(f"{' -> '.join(f'{spec.class_name}.{c}' for c in cycle)}: the methods call each other "
                          f"round, so none can move first; move them by hand", path, members[m].lineno)
        visiting.append(m)
        for o in calls[m]:
            visit(o)
        visiting.pop()
        out.append(m)

    for m in spec.methods:
        visit(m)
    return out, calls, path


def check(spec: MethodSpec, steps: Optional[range]) -> None:
    if len(set(spec.methods)) != len(spec.methods):
        raise BadInput(f"CLASS.M1,M2,...: a method named twice ({', '.join(spec.methods)})")
    if steps is not None and steps != STEPS.all:
        raise BadInput("--steps with several methods: they run their four steps each, one method after the other "
                       "(--commit gives one commit per step); run a range of steps on one method")
    for what, given in (("--narrow", spec.narrows), ("--move-global", spec.moved_globals),
                        ("--name FUNCTION", spec.function_name)):
        if given:
            raise BadInput(f"{what} with several methods: say it in a run of the one method it is for"
                           + ("; name each function with --name METHOD=FUNCTION" if what.startswith("--name")
                              else ""))
    unknown = sorted(set(spec.names) - set(spec.methods))
    if unknown:
        raise BadInput(f"--name {unknown[0]}=...: {unknown[0]} is not one of the methods {', '.join(spec.methods)}")


def plan_group(ctx: Context, spec: MethodSpec, steps: Optional[range], plan_one) -> Plan:
    """The plan of extracting every method of `spec.methods` (`plan_one(ctx, recipe, steps)`: one
    method's plan)."""
    check(spec, steps)
    methods, calls, path = order(ctx, spec)
    writers = _writers(ctx.read(path), spec)
    texts: dict[Path, str] = {}
    originals: dict[Path, Optional[str]] = {}
    total: Optional[Plan] = None
    moved: list[str] = []  # functions of the group now in the target
    applied: list[str] = []
    done: list[str] = []  # the methods extracted so far
    for m in methods:
        run_ctx = Overlay(ctx.path, ctx.found, ctx.checkout.with_texts(
            {ctx.checkout.relative(p, ctx.checkout.package_root): t for p, t in texts.items()}), ctx.format,
            ctx.parses, ctx._style, texts=dict(texts))
        one = replace(spec, method_name=m, function_name=spec.names.get(m), methods=(), names={},
                      write_back=spec.write_back if m in writers else None)
        recipe = replace(recipe_for(run_ctx, one),
                         group_callers=tuple(c for c in methods[methods.index(m) + 1:] if m in calls[c]),
                         group_functions=tuple(moved))
        try:
            plan = plan_one(run_ctx, recipe, None)  # from where the method is (a static method: step 2)
        except AlreadyApplied as exc:
            callers = [c for c in recipe.group_callers if c not in done]
            if callers and calls[callers[0]].get(m) is not None:  # it is a wrapper, which they call
                raise Refusal(f"{recipe.qualified} is already extracted, with a wrapper, which {callers[0]} calls "
                              f"here: the group rewires calls of the methods it moves itself; run it on the tree "
                              f"before that extraction, or extract {m} with --no-wrapper first",
                              path, calls[callers[0]][m]) from None
            applied.append(f"{recipe.qualified}: {exc.why}")
            moved.append(recipe.function)
            continue
        except CodemodError as exc:
            raise _as_on_disk(exc, texts, originals, done) from None
        done.append(m)
        moved.append(recipe.function)
        for file, old in plan.originals.items():
            originals.setdefault(file, old)
        texts.update(plan.changes)
        if total is None:
            total = Plan(root=plan.root, shape=plan.shape)
        else:
            total.shape += f"; {plan.shape}"
        total.steps += plan.steps
        total.messages += [f"{recipe.qualified}:", *(f"  {line}" for line in plan.messages)]
        total.broken_between_steps += plan.broken_between_steps
    if total is None:
        raise AlreadyApplied("every method is already extracted: " + "; ".join(applied), path)
    total.messages[:0] = [f"{len(methods)} methods, moved in this order: {', '.join(methods)}",
                          *(f"skipped, {line}" for line in applied)]
    total.originals = originals
    total.changes = {p: t for p, t in texts.items() if t != originals.get(p)}
    return total


def _writers(text: str, spec: MethodSpec) -> set[str]:
    """The methods of the group `--write-back ATTR` is for: those assigning `self.ATTR` (none: the
    first, which then says it never writes it)."""
    if spec.write_back is None:
        return set()
    attribute = spec.write_back.partition("=")[0]
    found = [s for s in ast.parse(text).body if isinstance(s, ast.ClassDef) and s.name == spec.class_name]
    out = set()
    for member in found[0].body if len(found) == 1 else ():
        if isinstance(member, ast.FunctionDef) and member.name in spec.methods and any(
                isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and n.attr == attribute
                and isinstance(n.value, ast.Name) and n.value.id == "self" for n in ast.walk(member)):
            out.add(member.name)
    return out or {spec.methods[0]}


def _as_on_disk(exc: CodemodError, texts: dict[Path, str], originals: dict[Path, Optional[str]], done: list[str]
                ) -> CodemodError:
    """`exc` of a later method's run, its line that of the user's file where the earlier runs left
    that line as it was; else said to be the line as they left the file."""
    path, line = exc.path, exc.line
    if path is None or line is None or path not in texts:
        return exc
    before = originals.get(path)
    if before is not None:
        matcher = difflib.SequenceMatcher(None, before.splitlines(), texts[path].splitlines(), autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal" and j1 < line <= j2:
                exc.line = line - j1 + i1
                return exc
    exc.why += f" (line {line} of the file as extracting {', '.join(done)} leaves it)"
    exc.line = None
    return exc
