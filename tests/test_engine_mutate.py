"""equivalence.engine.selfcheck.mutate: generic mutants of the function holding the logic and of its caller."""

from __future__ import annotations

import ast
import difflib
import textwrap

import pytest

from codemods.extract_kv_dtype import refactor
from pysource.extraction import locate
from equivalence.engine.selfcheck.mutate import KINDS, method_mutants, mutants_of
from equivalence.engine.selfcheck.mutations import Edit
from tests.engine_examples import EXTRACTIONS, RUNNER, TARGET, extracted_steps, step_tree, write_tree
from tests.releases import release_root

MR = "sglang/srt/model_executor/model_runner.py"


def _method_tree(tmp_path, body: str):
    """`Runner.work` with `body` (dedented), called from `__init__`."""
    code = textwrap.indent(textwrap.dedent(body), " " * 8)
    text = ("import logging\n\nlogger = logging.getLogger(__name__)\n\n\nclass Runner:\n"
            "    def __init__(self):\n        self.work()\n\n    def work(self):\n" + code)
    return write_tree(tmp_path, {"pkg/runner.py": text})


def _changes(root, rel: str, mutant) -> tuple[str, str]:
    """The first lines a mutant changes: (before, after), stripped."""
    old, new = (root / rel).read_text().splitlines(), mutant.overrides[rel].splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    (_, i1, _, j1, _) = next(op for op in matcher.get_opcodes() if op[0] != "equal")
    return old[i1].strip(), new[j1].strip()


def _summary(tmp_path, body: str) -> list[tuple[str, str]]:
    root = _method_tree(tmp_path, body)
    return [(m.kind, _changes(root, "pkg/runner.py", m)[1]) for m in method_mutants(root, "pkg/runner.py", "Runner", "work")]


# --- each kind applies where expected, and only there ----------------------------------------


@pytest.mark.parametrize("body, expected", [
    ("if self.a == 1:\n    self.x = 1\n",
     [("cmp-flip", "if self.a != 1:"), ("const", "if self.a == 2:"), ("drop", "pass"),
      ("branch-swap", "if not (self.a == 1):"), ("write", "self.x_mutant = 1"), ("const#2", "self.x = 2")]),
    ("if self.a is None:\n    return\n", [("cmp-flip", "if self.a is not None:"), ("branch-swap", "if not (self.a is None):")]),
    ("self.y = 'a' not in self.b\n",
     [("cmp-flip", "self.y = 'a' in self.b"), ("const", "self.y = 'a_mutant' not in self.b"), ("drop", "pass"),
      ("write", "self.y_mutant = 'a' not in self.b")]),
    ("self.y = self.a if self.c else None\n",
     [("const", 'self.y = self.a if self.c else "<mutant>"'), ("drop", "pass"),
      ("branch-swap", "self.y = None if self.c else self.a"), ("write", "self.y_mutant = self.a if self.c else None")]),
    ("if self.a and self.b or self.c:\n    raise ValueError(self.a)\n",
     [("drop", "pass"), ("branch-swap", "if not (self.a and self.b or self.c):"),
      ("bool-swap", "if self.a and self.b and self.c:"), ("bool-swap#2", "if self.a or self.b or self.c:")]),
    ("self.x = round(self.a, self.b)\n",
     [("drop", "pass"), ("arg-order", "self.x = round(self.b, self.a)"), ("write", "self.x_mutant = round(self.a, self.b)")]),
    ("self.x = round(self.a, self.a)\n", [("drop", "pass"), ("write", "self.x_mutant = round(self.a, self.a)")]),
    ("self.x = max(self.a, min(self.b, 4))\n",
     [("const", "self.x = max(self.a, min(self.b, 5))"), ("drop", "pass"),
      ("write", "self.x_mutant = max(self.a, min(self.b, 4))")]),
    ('logger.info(f"got {self.a}")\n', [("drop", "pass")]),
    ('"""Docstring."""\nassert self.ok is True, "msg"\n',
     [("cmp-flip", 'assert self.ok is not True, "msg"'), ("const", 'assert self.ok is True, "msg_mutant"'),
      ("drop", "pass")]),
    ("self.n = 1.5\n", [("const", "self.n = 2.5"), ("drop", "pass"), ("write", "self.n_mutant = 1.5")]),
    ("x = self.a == 1  # == is fine\n", [("cmp-flip", "x = self.a != 1  # == is fine"),
                                         ("const", "x = self.a == 2  # == is fine"), ("drop", "pass  # == is fine")]),
    ("x = (self.a  # a == b\n     == 1)\n", [("const", "== 2)"), ("drop", "pass")]),
], ids=["if-compare-write", "is-none-no-const", "not-in", "ifexp-none", "boolop", "positional-args",
        "identical-args-not-swapped", "min-max-commute-not-swapped", "fstring-untouched", "docstring-untouched-assert", "float",
        "comment-after", "comment-in-gap-skipped"])
def test_kinds(tmp_path, body, expected):
    got = _summary(tmp_path, body)
    by_kind: dict[str, int] = {}
    labelled = []
    for kind, line in got:
        by_kind[kind] = by_kind.get(kind, 0) + 1
        labelled.append((kind if by_kind[kind] == 1 else f"{kind}#{by_kind[kind]}", line))
    assert sorted(labelled) == sorted(expected)


def test_branch_swap_moves_whole_blocks(tmp_path):
    body = "if self.a:\n    x = 1\n    y = 2\nelse:\n    x = 3\n    y = 4\nself.z = x + y\n"
    root = _method_tree(tmp_path, body)
    (swap,) = [m for m in method_mutants(root, "pkg/runner.py", "Runner", "work") if m.kind == "branch-swap"]
    assert swap.description == "`if self.a`: body and else swapped"
    expected = "        if self.a:\n            x = 3\n            y = 4\n        else:\n            x = 1\n            y = 2\n"
    assert swap.overrides["pkg/runner.py"] == (root / "pkg/runner.py").read_text().replace(
        "x = 1\n            y = 2\n        else:\n            x = 3\n            y = 4\n",
        "x = 3\n            y = 4\n        else:\n            x = 1\n            y = 2\n")
    assert expected in swap.overrides["pkg/runner.py"]


def test_elif_is_negated_not_swapped(tmp_path):
    body = "if self.a:\n    x = 1\nelif self.b:\n    x = 2\nelse:\n    x = 3\nself.z = x\n"
    root = _method_tree(tmp_path, body)
    swaps = {m.description for m in method_mutants(root, "pkg/runner.py", "Runner", "work") if m.kind == "branch-swap"}
    assert swaps == {"`if self.a`: test negated", "`elif self.b`: body and else swapped"}


def test_non_ascii_text_before_a_node(tmp_path):
    root = _method_tree(tmp_path, 'self.x = ("é", "b")\n')
    consts = [m for m in method_mutants(root, "pkg/runner.py", "Runner", "work") if m.kind == "const"]
    assert [_changes(root, "pkg/runner.py", m)[1] for m in consts] == ['self.x = ("é_mutant", "b")', 'self.x = ("é", "b_mutant")']


def test_unparseable_or_unchanged_edits_are_skipped(tmp_path):
    from equivalence.engine.selfcheck.mutate import _units

    root = _method_tree(tmp_path, "self.x = 1\n")
    (unit,) = _units(locate(root, "pkg/runner.py", "Runner", "work"))
    start = unit.text.index("self.x = 1")
    assert unit.apply(Edit("drop", 11, "broken", [(start, start + 4, "self(")])) is None
    assert unit.apply(Edit("const", 11, "same", [(start + 9, start + 10, "(1)")])) is None
    assert unit.apply(Edit("const", 11, "real", [(start + 9, start + 10, "2")])) is not None


# --- the caller: wrapper or call sites --------------------------------------------------------


def test_wrapper_kinds(tmp_path):
    root = step_tree(tmp_path, 3)
    wrapper = [m for m in method_mutants(root, RUNNER, "Runner", "bind", limit=100) if m.file_rel == RUNNER]
    assert sorted((m.kind, m.description) for m in wrapper) == [
        ("arg-order", "`tp_rank` and `tp_size` passed each other's value"),
        ("drop", "`self.cpu = binding.bind(tp_rank=self.tp_rank, tp_size=self.…` dropped"),
        ("param-source", "`tp_rank` passed self.tp_size instead of self.tp_rank"),
        ("param-source", "`tp_size` passed self.tp_rank instead of self.tp_size"),
        ("write", "the result goes to self.cpu_mutant instead of self.cpu"),
        ("write", "the result is not written to self.cpu")]
    assert all(m.line == 12 for m in wrapper)


def test_a_wrapper_passing_by_position_gets_the_mutants_of_one_passing_by_keyword(tmp_path):
    """`--positional`: each two neighbouring arguments swapped, and each one read from self
    passed another one's value, as for keywords."""
    root = step_tree(tmp_path, 3, {RUNNER: ("binding.bind(tp_rank=self.tp_rank, tp_size=self.tp_size)",
                                            "binding.bind(self.tp_rank, self.tp_size, self.tp_rank)"),
                                   TARGET: ("def bind(*, tp_rank, tp_size):", "def bind(tp_rank, tp_size, spare):")})
    wrapper = [m for m in method_mutants(root, RUNNER, "Runner", "bind", limit=100) if m.file_rel == RUNNER]
    call = "`binding.bind(self.tp_rank, self.tp_size, self.tp_rank)`"
    assert sorted((m.kind, m.description) for m in wrapper) == [
        ("arg-order", f"{call}: arguments 1 and 2 swapped"),
        ("arg-order", f"{call}: arguments 2 and 3 swapped"),
        ("drop", "`self.cpu = binding.bind(self.tp_rank, self.tp_size, self.tp…` dropped"),
        ("param-source", "argument 1 passed self.tp_size instead of self.tp_rank"),
        ("param-source", "argument 2 passed self.tp_rank instead of self.tp_size"),
        ("param-source", "argument 3 passed self.tp_size instead of self.tp_rank"),
        ("write", "the result goes to self.cpu_mutant instead of self.cpu"),
        ("write", "the result is not written to self.cpu")]


@pytest.mark.parametrize("step", [1, 2], ids=["static-in-place", "moved"])
def test_call_sites_are_the_caller_before_the_wrapper_exists(tmp_path, step):
    root = step_tree(tmp_path, step)
    (site,) = locate(root, RUNNER, "Runner", "bind").call_sites
    caller = {m.kind for m in method_mutants(root, RUNNER, "Runner", "bind", limit=100) if m.line == site.line}
    # no drop: without its one statement the version calls the function nowhere (it would not load)
    assert caller == {"arg-order", "param-source", "write"}


def test_function_mutants_land_in_the_target_file(tmp_path):
    root = step_tree(tmp_path, 3)
    mutants = method_mutants(root, RUNNER, "Runner", "bind", limit=100)
    assert {m.file_rel for m in mutants} == {RUNNER, TARGET}
    for m in mutants:
        (rel,) = m.overrides
        assert rel == m.file_rel
        ast.parse(m.overrides[rel])


def test_selection_is_deterministic_spread_and_limited(tmp_path):
    root = step_tree(tmp_path, 3)
    first = method_mutants(root, RUNNER, "Runner", "bind", limit=7)
    assert [m.id for m in first] == [m.id for m in method_mutants(root, RUNNER, "Runner", "bind", limit=7)]
    assert len(first) == 7 and len({m.kind for m in first}) == 7  # every kind but bool-swap (no and/or here)
    assert len({m.id for m in method_mutants(root, RUNNER, "Runner", "bind", limit=100)}) == \
        len(method_mutants(root, RUNNER, "Runner", "bind", limit=100))


def test_ids(tmp_path):
    root = _method_tree(tmp_path, "self.x = (1, 2)\n")
    assert [m.id for m in method_mutants(root, "pkg/runner.py", "Runner", "work") if m.kind == "const"] == [
        "const@L11", "const@L11#2"]


# --- real releases -----------------------------------------------------------------------------


def _only_inside(original: str, mutant_text: str, first: int, last: int) -> bool:
    """Every line outside first..last is byte-identical."""
    old, new = original.splitlines(keepends=True), mutant_text.splitlines(keepends=True)
    tail = len(old) - last
    return old[: first - 1] == new[: first - 1] and old[len(old) - tail:] == new[len(new) - tail:]


def _check_release_mutants(ext, mutants, spans: dict[str, tuple[int, int]]):
    assert len(mutants) >= 10 and len({m.id for m in mutants}) == len(mutants)
    assert len({m.kind for m in mutants}) >= 5
    for m in mutants:
        (rel,) = m.overrides
        original = ext.text(rel)
        assert m.overrides[rel] != original
        ast.parse(m.overrides[rel])
        assert _only_inside(original, m.overrides[rel], *spans[rel]), m.id


@pytest.mark.parametrize("method", ["init_threads_binding", "check_quantized_moe_compatibility",
                                    "configure_kv_cache_dtype"])
def test_release_before_file(method):
    ext = locate(release_root("0.5.15.post1"), MR, "ModelRunner", method)
    mutants = mutants_of(ext)
    _check_release_mutants(ext, mutants, {MR: (ext.method.lineno, ext.method.end_lineno)})
    assert {m.file_rel for m in mutants} == {MR}


@pytest.mark.parametrize("method, caller_kinds", [
    ("init_threads_binding", {"arg-order", "drop", "param-source", "write"}),
    ("check_quantized_moe_compatibility", {"arg-order", "drop", "param-source"}),  # its result is discarded
])
def test_release_after_upstream(method, caller_kinds):
    ext = locate(release_root("0.5.16"), MR, "ModelRunner", method)
    mutants = mutants_of(ext, limit=100)
    _check_release_mutants(ext, mutants, {MR: (ext.wrapper.lineno, ext.wrapper.end_lineno),
                                          ext.target_rel: (ext.function.lineno, ext.function.end_lineno)})
    assert {m.file_rel for m in mutants} == {MR, ext.target_rel}
    assert {m.kind for m in mutants if m.file_rel == MR} == caller_kinds


def test_release_after_codemod_kv():
    root = release_root("0.5.15.post1")
    plan = refactor(root)
    overrides = {str(path.relative_to(plan.root)): text for path, text in plan.changes.items()}
    ext = locate(root, MR, "ModelRunner", "configure_kv_cache_dtype", overrides=overrides)
    mutants = mutants_of(ext, limit=40)
    _check_release_mutants(ext, mutants, {MR: (ext.wrapper.lineno, ext.wrapper.end_lineno),
                                          ext.target_rel: (ext.function.lineno, ext.function.end_lineno)})
    kinds = {m.kind for m in mutants}
    assert kinds == set(KINDS)
    writes = sorted(m.description for m in mutants if m.kind == "write")
    assert writes == ["the result goes to self.kv_cache_dtype_mutant instead of self.kv_cache_dtype",
                      "the result is not written to self.kv_cache_dtype"]



@pytest.mark.parametrize("method, caller_kinds", [
    ("init_threads_binding", {"arg-order", "drop", "param-source", "write"}),
    ("check_quantized_moe_compatibility", {"arg-order", "drop", "param-source"}),  # its result is discarded
])
def test_release_after_extract_method(method, caller_kinds):
    root = release_root("0.5.15.post1")
    ext = locate(root, MR, "ModelRunner", method, overrides=extracted_steps(root, method)[-1])
    mutants = mutants_of(ext)
    target = EXTRACTIONS[method][0].replace(".", "/") + ".py"
    _check_release_mutants(ext, mutants, {MR: (ext.wrapper.lineno, ext.wrapper.end_lineno),
                                          target: (ext.function.lineno, ext.function.end_lineno)})
    assert {m.file_rel for m in mutants} == {MR, target}
    assert {m.kind for m in mutants if m.file_rel == MR} == caller_kinds


def test_a_none_the_code_compares_through_a_method_becomes_the_literal(tmp_path):
    """`getattr(c, "algo", None)` then `isinstance(algo, str) and algo.upper() == "FP8"`: any other
    string takes None's path, so the None becomes the literal the code compares the name with."""
    got = _summary(tmp_path, 'algo = getattr(self.c, "algo", None)\n'
                             'if isinstance(algo, str) and algo.upper() == "FP8":\n    return 1\n')
    assert ("const", 'algo = getattr(self.c, "algo", "FP8")') in got
    assert not any("<mutant>" in line for _, line in got)


def test_a_none_only_probed_by_getattr_is_no_mutant(tmp_path):
    """`q = getattr(m, "q", None)` read only by `getattr(q, "a", None)`: a string there is None's
    equal (str has no `a`), so no input could kill it; the second None still is a mutant."""
    got = _summary(tmp_path, 'q = getattr(self.m, "q", None)\nself.a = getattr(q, "a", None)\n')
    nones = [line for kind, line in got if kind == "const" and "<mutant>" in line]
    assert nones == ['self.a = getattr(q, "a", "<mutant>")']
    got = _summary(tmp_path / "upper", 'q = getattr(self.m, "q", None)\nself.a = getattr(q, "upper", None)\n')
    assert ("const", 'q = getattr(self.m, "q", "<mutant>")') in got  # a string has .upper: told apart


def test_the_call_site_of_a_moved_function_is_never_dropped(tmp_path):
    """No wrapper left (extract_method --no-wrapper): dropping the statement that calls the
    function leaves a version that calls it nowhere, which the harness refuses to load: no mutant;
    the other statements of the call site are still dropped."""
    root = write_tree(tmp_path, {
        "pkg/runner.py": """\
            from pkg import hooks


            class Runner:
                def __init__(self):
                    total = 1
                    total += hooks.work(self)
                    total = max(total, 8)
                    self.total = total
            """,
        "pkg/hooks.py": """\
            def work(runner):
                return runner.size * 2
            """})
    found = method_mutants(root, "pkg/runner.py", "Runner", "work")
    dropped = [_changes(root, m.file_rel, m)[0] for m in found if m.kind == "drop"]
    assert "total += hooks.work(self)" not in dropped
    assert dropped, "the statements around the call are mutated still"
