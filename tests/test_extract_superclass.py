"""codemods.extract_superclass: before/after pairs of small modules (LibCST's style of codemod
test), the fixture (`fixtures/superclass/pool`: behaviour kept, a second run exits 5, --dry-run
and --commit), every refusal with its file and line, and on 0.5.20 the base upstream extracted in
0.5.21 (skipped when that release is not cached)."""

from __future__ import annotations

import ast
import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from codemods.extract_superclass import (AlreadyApplied, BadInput, NoSuchMethod, Refusal, SuperclassSpec, refactor,
                                         write_plan)
from tests.releases import cache_dir

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "superclass" / "pool"
POOLS = "sglang/srt/pools.py"


def _tree(tmp_path: Path, text: str, **more: str) -> Path:
    root = tmp_path / "t"
    (root / "sglang" / "srt").mkdir(parents=True)
    (root / "sglang" / "__init__.py").write_text("")
    (root / "sglang" / "srt" / "__init__.py").write_text("")
    (root / POOLS).write_text(dedent(text))
    for rel, body in more.items():
        (root / rel.replace(".", "/").replace("/py", ".py")).write_text(dedent(body))
    return root


def _spec(methods: str, state: str | None = None, target: str = "sglang.srt.pools.PoolBase", **kw) -> SuperclassSpec:
    return SuperclassSpec(class_name="Pool", target=target, methods=tuple(methods.split(",")),
                          state=tuple(state.split(",")) if state else None, **kw)


def _apply(root: Path, spec: SuperclassSpec) -> str:
    write_plan(refactor(root, spec, format=False))
    return (root / POOLS).read_text()


PARENT = """\
    import logging

    logger = logging.getLogger(__name__)


    class Parent:
        def __init__(self, size):
            self.size = size

        def reset(self):
            self.size = 0
"""


def test_the_state_statements_become_the_base_init_where_they_were(tmp_path):
    before = PARENT + """

    class Pool(Parent):
        \"\"\"A pool.\"\"\"

        def __init__(self, size, device, *, debug=False):
            scale = 2 * size
            super().__init__(size)
            self.free_slots = list(range(scale))
            logger.info("pool on %s", device)
            self.used = 0
            self.debug = debug

        def alloc(self, n):
            self.used += n
            return [self.free_slots.pop() for _ in range(n)]

        def reset(self):
            super().reset()
            self.used = 0

        def report(self):
            return f"{self.used} used"
    """
    after = PARENT + """

    class PoolBase(Parent):
        def __init__(self, device, *, scale):
            self.free_slots = list(range(scale))
            logger.info("pool on %s", device)
            self.used = 0

        def alloc(self, n):
            self.used += n
            return [self.free_slots.pop() for _ in range(n)]

        def reset(self):
            super().reset()
            self.used = 0


    class Pool(PoolBase):
        \"\"\"A pool.\"\"\"

        def __init__(self, size, device, *, debug=False):
            scale = 2 * size
            super(PoolBase, self).__init__(size)
            super().__init__(device=device, scale=scale)
            self.debug = debug

        def report(self):
            return f"{self.used} used"
    """
    root = _tree(tmp_path, before)
    assert _apply(root, _spec("alloc,reset")) == dedent(after)
    # the same effects in the same order, and the members found where they were
    probe = dedent("""
        import logging, sys
        logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")
        from sglang.srt.pools import Pool
        p = Pool(3, "cpu", debug=True)
        print(p.size, p.free_slots, p.used, p.debug, p.alloc(2), p.report())
        p.reset()
        print(p.size, p.used, [k.__name__ for k in type(p).__mro__])
    """)
    outs = [subprocess.run([sys.executable, "-c", probe], cwd=r, capture_output=True, text=True, check=True).stdout
            for r in (_tree(tmp_path / "b", before), root)]
    assert outs[0].splitlines()[:2] == outs[1].splitlines()[:2]
    assert outs[1].splitlines()[-1].endswith("['Pool', 'PoolBase', 'Parent', 'object']")


def test_a_span_that_is_all_of_init_takes_its_parameters_and_the_class_loses_it(tmp_path):
    before = """\
    class Pool:
        def __init__(self, *, size: int, page: int = 1):
            # sized first
            self.size = size
            self.page = page
            self.table = self._make_table()

        def _make_table(self):
            return [0] * self.size

        def pages(self) -> int:
            return len(self.table) // self.page
    """
    after = """\
    class PoolBase:
        def __init__(self, *, size: int, page: int = 1):
            # sized first
            self.size = size
            self.page = page
            self.table = self._make_table()

        def pages(self) -> int:
            return len(self.table) // self.page

        def _make_table(self): ...


    class Pool(PoolBase):
        def _make_table(self):
            return [0] * self.size
    """
    root = _tree(tmp_path, before)
    plan = refactor(root, _spec("pages", "size,page,table"), format=False)
    assert any("hooks PoolBase declares" in m and "_make_table" in m for m in plan.messages)
    write_plan(plan)
    assert (root / POOLS).read_text() == dedent(after)


def test_inferred_state_is_what_the_moved_members_use(tmp_path):
    root = _tree(tmp_path, """\
    class Pool:
        def __init__(self):
            self.a = 1
            self.b = 2
            self.c = 3

        def first(self):
            return self.a

        def last(self):
            return self.c
    """)
    text = _apply(root, _spec("first,last"))
    base = next(s for s in ast.parse(text).body if isinstance(s, ast.ClassDef) and s.name == "PoolBase")
    init = next(s for s in base.body if isinstance(s, ast.FunctionDef) and s.name == "__init__")
    assert [ast.unparse(s) for s in init.body] == ["self.a = 1", "self.b = 2", "self.c = 3"]  # b: between them
    assert "Pool(PoolBase)" in text and text.count("def __init__") == 1


@pytest.mark.parametrize("format", [False, True])
def test_a_base_init_cut_from_a_long_header_is_written_on_one_line(tmp_path, format):
    root = _tree(tmp_path, """\
    class Pool:
        def __init__(
            self,
            capacity: int,
            device: str = "cpu",
        ):
            self.seen = []
            self.capacity = capacity
            self.device = device

        def note(self, x):
            self.seen.append(x)
    """)
    write_plan(refactor(root, _spec("note", "seen"), format=format))
    text = (root / POOLS).read_text()
    base = text[text.index("class PoolBase"):text.index("class Pool(")]
    assert "    def __init__(self):\n        self.seen = []\n" in base, base
    assert "def __init__(\n        self,\n        capacity: int," in text  # Pool's own header is untouched


def test_members_only_no_state(tmp_path):
    root = _tree(tmp_path, """\
    class Pool:
        def __init__(self):
            self.n = 0

        def double(self, x):
            return 2 * x
    """)
    text = _apply(root, _spec("double", ))
    assert dedent("""\
    class PoolBase:
        def double(self, x):
            return 2 * x


    class Pool(PoolBase):
        def __init__(self):
            self.n = 0
    """) == text


def test_a_base_in_another_module_brings_its_imports(tmp_path):
    root = _tree(tmp_path, """\
    from __future__ import annotations

    import math


    class Pool:
        def __init__(self, n: int):
            self.n = n

        def root(self) -> float:
            return math.sqrt(self.n)
    """)
    text = _apply(root, _spec("root", target="sglang.srt.pool_base.PoolBase"))
    assert "from sglang.srt.pool_base import PoolBase" in text and "class Pool(PoolBase):" in text
    base = (root / "sglang/srt/pool_base.py").read_text()
    assert "import math" in base and "class PoolBase:" in base and "def root" in base
    out = subprocess.run([sys.executable, "-c", "from sglang.srt.pools import Pool; print(Pool(16).root())"],
                         cwd=root, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "4.0"


REFUSED = [
    ("a local the rest of __init__ reads", """\
    class Pool:
        def __init__(self):
            self.a = 1
            k = self.a * 2
            self.b = k
            print(k)

        def m(self):
            return self.a + self.b
    """, "m", None, 6, "reads 'k' after the statements that set the state"),
    ("a return among the state's statements", """\
    class Pool:
        def __init__(self, x):
            self.a = x
            if x:
                return
            self.b = 1

        def m(self):
            return self.a + self.b
    """, "m", None, 5, "returns"),
    ("a mangled name", """\
    class Pool:
        def m(self):
            return self.__secret
    """, "m", None, 3, "mangles"),
    ("a decorated class", """\
    import functools

    @functools.total_ordering
    class Pool:
        def m(self):
            return 1
    """, "m", None, 3, "is decorated"),
    ("--state not set by __init__", """\
    class Pool:
        def __init__(self):
            self.a = 1

        def m(self):
            return self.a
    """, "m", "zzz", 2, "does not set self.zzz"),
    ("a global the state's statements set", """\
    class Pool:
        def __init__(self):
            global COUNT
            self.a = 1
            COUNT = self.a
            self.b = COUNT

        def m(self):
            return self.a + self.b
    """, "m", "a,b", 5, "declares global or nonlocal elsewhere"),
    ("**kwargs changed by the span, read after it", """\
    class Pool:
        def __init__(self, **kw):
            self.a = kw.pop("a")
            self.rest = kw

        def m(self):
            return self.a
    """, "m", "a", 3, "may change kw"),
    ("class keywords", """\
    class Pool(dict, total=False):
        def m(self):
            return 1
    """, "m", None, 1, "passes total=False"),
    ("an ancestor's __init_subclass__", """\
    class Registered:
        def __init_subclass__(cls):
            pass


    class Pool(Registered):
        def m(self):
            return 1
    """, "m", None, 6, "defines __init_subclass__"),
    ("a default the class body binds", """\
    class Pool:
        LIMIT = 4

        def m(self, n=LIMIT):
            return n
    """, "m", None, 4, "header reads LIMIT"),
    ("the base's name taken", """\
    PoolBase = object


    class Pool:
        def m(self):
            return 1
    """, "m", None, 1, "already binds PoolBase"),
]


@pytest.mark.parametrize("why, text, methods, state, line, says", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_with_file_and_line(tmp_path, why, text, methods, state, line, says):
    root = _tree(tmp_path, text)
    before = (root / POOLS).read_text()
    with pytest.raises(Refusal) as e:
        refactor(root, _spec(methods, state))
    assert f"{POOLS}:{line}:" in str(e.value) and says in str(e.value)
    assert (root / POOLS).read_text() == before


def test_a_name_bound_inside_an_if_block_is_refused_at_the_line_that_uses_it(tmp_path):
    # the base goes to another module; `npu_ops` is imported under `if`: the refusal points at the
    # moved code's use (line 10), not at line 1
    root = _tree(tmp_path, """\
    import os

    if os.environ.get("NPU"):
        import npu_ops


    class Pool:
        def m(self, x):
            y = x + 1
            return npu_ops.run(y)
    """)
    with pytest.raises(Refusal) as e:
        refactor(root, _spec("m", target="sglang.srt.pool_base.PoolBase"))
    assert f"{POOLS}:10:" in str(e.value) and "a name bound inside an if/try block" in str(e.value)
    assert not (root / "sglang/srt/pool_base.py").exists()


def test_a_guarded_import_the_members_use_is_refused_at_the_use_naming_the_binding(tmp_path):
    root = _tree(tmp_path, """\
    import os

    if os.environ.get("FAST"):
        import fast_kernels


    class Pool:
        def keep(self):
            return 1

        def m(self):
            return fast_kernels.run()
    """)
    before = (root / POOLS).read_text()
    with pytest.raises(Refusal) as e:
        refactor(root, _spec("m", target="sglang.srt.pool_base.PoolBase"))
    assert f"{POOLS}:12:" in str(e.value) and "bound inside an if/try block" in str(e.value)
    assert "(line 4)" in str(e.value)
    assert (root / POOLS).read_text() == before


def test_super_of_the_class_elsewhere_is_refused(tmp_path):
    root = _tree(tmp_path, """\
    class Pool:
        def m(self):
            return 1
    """, **{"sglang.srt.sub.py": """\
    from sglang.srt.pools import Pool


    class Sub(Pool):
        def m(self):
            return super(Pool, self).m() + 1
    """})
    with pytest.raises(Refusal) as e:
        refactor(root, _spec("m"))
    assert "sglang/srt/sub.py:6:" in str(e.value) and "super(Pool, ...).m" in str(e.value)


def test_bad_input_and_nothing_to_do(tmp_path):
    root = _tree(tmp_path, """\
    class Pool:
        def alloc(self):
            return 1
    """)
    with pytest.raises(BadInput, match="did you mean alloc"):
        refactor(root, _spec("alloc,aloc"))
    with pytest.raises(NoSuchMethod):
        refactor(root, _spec("gone"))
    with pytest.raises(BadInput, match="__init__"):
        refactor(root, _spec("__init__"))
    with pytest.raises(BadInput, match="exclude each other"):
        refactor(root, _spec("alloc", "a", all_init=True))


def _cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemods.extract_superclass", *args], cwd=cwd,
                          capture_output=True, text=True)


FIXTURE_ARGS = ("TwoSidedSlotPool", "sglang.srt.cache.slots.TwoSidedBase", "--methods",
                "capacity,available,alloc,free,clear")
SERVE = ("from sglang.srt.cache.users import serve; "
         "print(serve([1, 2, 3, 9, 2])); print(serve([3, 1, 4], 'wide')); print(serve([2, 5, 1], 'skewed'))")


def test_the_fixture_behaves_as_before_and_a_second_run_exits_5(tmp_path):
    root = tmp_path / "pool"
    shutil.copytree(FIXTURE, root)
    before = subprocess.run([sys.executable, "-c", SERVE], cwd=root, capture_output=True, text=True, check=True)
    dry = _cli(str(root), *FIXTURE_ARGS, "--dry-run")
    assert dry.returncode == 0 and "+class TwoSidedBase(SlotPoolBase):" in dry.stdout
    assert "class TwoSidedBase" not in (root / "sglang/srt/cache/slots.py").read_text()
    run = _cli(str(root), *FIXTURE_ARGS)
    assert run.returncode == 0, run.stderr
    assert "hooks TwoSidedBase declares (TwoSidedSlotPool overrides them): _make_sizer" in run.stderr
    after = subprocess.run([sys.executable, "-c", SERVE], cwd=root, capture_output=True, text=True, check=True)
    assert after.stdout == before.stdout
    tree = ast.parse((root / "sglang/srt/cache/slots.py").read_text())
    cls = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    assert [ast.unparse(b) for b in cls["TwoSidedSlotPool"].bases] == ["TwoSidedBase"]
    assert [ast.unparse(b) for b in cls["TwoSidedBase"].bases] == ["SlotPoolBase"]
    assert {s.name for s in cls["TwoSidedSlotPool"].body if isinstance(s, ast.FunctionDef)} == {"_make_sizer", "stats"}
    again = _cli(str(root), *FIXTURE_ARGS)
    assert again.returncode == 5 and "already applied" in again.stderr


def test_rebase_re_parents_a_subclass_and_the_checks_of_the_class(tmp_path):
    root = tmp_path / "pool"
    shutil.copytree(FIXTURE, root)
    before = subprocess.run([sys.executable, "-c", SERVE], cwd=root, capture_output=True, text=True, check=True)
    run = _cli(str(root), *FIXTURE_ARGS, "--rebase", "SkewedSlotPool")
    assert run.returncode == 0, run.stderr
    assert "step 2: Re-parent SkewedSlotPool onto TwoSidedBase" in run.stderr
    after = subprocess.run([sys.executable, "-c", SERVE], cwd=root, capture_output=True, text=True, check=True)
    assert after.stdout == before.stdout
    slots = ast.parse((root / "sglang/srt/cache/slots.py").read_text())
    bases = {s.name: [ast.unparse(b) for b in s.bases] for s in slots.body if isinstance(s, ast.ClassDef)}
    assert bases["SkewedSlotPool"] == ["TwoSidedBase"] and bases["WideSlotPool"] == ["TwoSidedSlotPool"]
    users = (root / "sglang/srt/cache/users.py").read_text()
    assert "isinstance(pool, TwoSidedBase)" in users  # BASE's subclasses are TwoSidedSlotPool's old ones
    assert "import SkewedSlotPool, TwoSidedSlotPool, TwoSidedBase, WideSlotPool" in users  # still constructed
    again = _cli(str(root), *FIXTURE_ARGS, "--rebase", "SkewedSlotPool")
    assert again.returncode == 5


def test_rebase_rewrites_the_class_inside_a_union_or_a_nested_tuple(tmp_path):
    # `isinstance(pool, TwoSidedSlotPool | int)`: left as it was, a re-parented SkewedSlotPool would
    # no longer pass the check; it reads the base, as in a tuple, nested or not
    root = tmp_path / "pool"
    shutil.copytree(FIXTURE, root)
    users = root / "sglang/srt/cache/users.py"
    users.write_text(users.read_text().replace(
        'return "two-sided" if isinstance(pool, TwoSidedSlotPool) else "other"',
        'return "two-sided" if isinstance(pool, TwoSidedSlotPool | int) and isinstance(pool, (str, bytes | '
        'TwoSidedSlotPool)) else "other"'))
    before = subprocess.run([sys.executable, "-c", SERVE], cwd=root, capture_output=True, text=True, check=True)
    run = _cli(str(root), *FIXTURE_ARGS, "--rebase", "SkewedSlotPool")
    assert run.returncode == 0, run.stderr
    text = users.read_text()
    assert "isinstance(pool, TwoSidedBase | int)" in text and "isinstance(pool, (str, bytes | TwoSidedBase))" in text
    after = subprocess.run([sys.executable, "-c", SERVE], cwd=root, capture_output=True, text=True, check=True)
    assert after.stdout == before.stdout


def test_rebase_refuses_a_subclass_that_inherits_what_the_class_keeps(tmp_path):
    root = tmp_path / "pool"
    shutil.copytree(FIXTURE, root)
    run = _cli(str(root), *FIXTURE_ARGS, "--rebase", "WideSlotPool")
    line = next(i for i, t in enumerate((root / "sglang/srt/cache/slots.py").read_text().splitlines(), 1)
                if t.startswith("class WideSlotPool"))
    assert run.returncode == 3
    assert f"slots.py:{line}: WideSlotPool does not override stats" in run.stderr
    assert "class TwoSidedBase" not in (root / "sglang/srt/cache/slots.py").read_text()


def test_commit_makes_one_commit(tmp_path):
    root = tmp_path / "pool"
    shutil.copytree(FIXTURE, root)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=root, check=True)
    run = _cli(str(root), *FIXTURE_ARGS, "--commit")
    assert run.returncode == 0, run.stderr
    log = subprocess.run(["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True).stdout.splitlines()
    assert log[0] == "Extract TwoSidedBase from TwoSidedSlotPool" and len(log) == 2


UPSTREAM_STAYING = {"__init__", "_build_swa_attn_allocator", "_wire_peers", "_compute_available_size",
                    "_flush_targets", "_ask_float_for_room", "verify_byte_accounting", "flush_opportunistic"}
ALLOCATORS = "sglang/srt/mem_cache/allocator/unified_hybrid_swa.py"


@pytest.mark.skipif(not (cache_dir() / "0.5.20" / "sglang").is_dir(), reason="0.5.20 is not cached")
def test_0_5_20_unified_swa_allocator_base_as_upstream_0_5_21(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    shutil.copytree(cache_dir() / "0.5.20" / "sglang", root / "sglang")
    cls = next(s for s in ast.parse((root / ALLOCATORS).read_text()).body
               if isinstance(s, ast.ClassDef) and s.name == "UnifiedSWATokenToKVPoolAllocator")
    moved = [s.name for s in cls.body if isinstance(s, ast.FunctionDef) and s.name not in UPSTREAM_STAYING]
    spec = SuperclassSpec("UnifiedSWATokenToKVPoolAllocator",
                          "sglang.srt.mem_cache.allocator.unified_hybrid_swa.UnifiedSWAAllocatorBase",
                          tuple(dict.fromkeys(moved)), all_init=True)
    write_plan(refactor(root, spec))
    tree = ast.parse((root / ALLOCATORS).read_text())
    classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    base, cls = classes["UnifiedSWAAllocatorBase"], classes["UnifiedSWATokenToKVPoolAllocator"]
    assert [ast.unparse(b) for b in base.bases] == ["SWATokenToKVPoolAllocator"]
    assert [ast.unparse(b) for b in cls.bases] == ["UnifiedSWAAllocatorBase"]
    kept = {s.name for s in cls.body if isinstance(s, ast.FunctionDef)}
    assert kept == UPSTREAM_STAYING - {"__init__"}  # as upstream: the subclass has no __init__ of its own
    stubs = {s.name for s in base.body if isinstance(s, ast.FunctionDef) and ast.unparse(s.body[0]) == "..."}
    assert stubs == {"_build_swa_attn_allocator", "_wire_peers", "_compute_available_size"}
    with pytest.raises(AlreadyApplied):
        refactor(root, spec)
    # step 2 as upstream: the tri-pool sibling on the base, the checks of the class reading it
    rebase = dataclasses.replace(spec, rebase=("UnifiedMambaSWATokenToKVPoolAllocator",))
    plan = refactor(root, rebase)
    assert [s.number for s in plan.steps] == [2]
    write_plan(plan)
    tree = ast.parse((root / ALLOCATORS).read_text())
    mamba = next(s for s in tree.body
                 if isinstance(s, ast.ClassDef) and s.name == "UnifiedMambaSWATokenToKVPoolAllocator")
    assert [ast.unparse(b) for b in mamba.bases] == ["UnifiedSWAAllocatorBase"]
    checks = {}
    for rel in sorted(plan.changes):
        text = Path(rel).read_text()
        checks[Path(rel).relative_to(root).as_posix()] = text.count("UnifiedSWAAllocatorBase")
    assert checks == {ALLOCATORS: checks[ALLOCATORS], "sglang/srt/mem_cache/kv_cache_configurator.py": 4,
                      "sglang/srt/mem_cache/kv_index_translator.py": 3,
                      "sglang/srt/mem_cache/unified_cache/components/swa.py": 2}  # each import, then each check
    with pytest.raises(AlreadyApplied):
        refactor(root, rebase)


def test_the_steps_one_by_one_give_what_they_give_together(tmp_path):
    together, apart = tmp_path / "together", tmp_path / "apart"
    for root in (together, apart):
        shutil.copytree(FIXTURE, root)
    spec = SuperclassSpec("TwoSidedSlotPool", "sglang.srt.cache.slots.TwoSidedBase",
                          ("capacity", "available", "alloc", "free", "clear"), rebase=("SkewedSlotPool",))
    write_plan(refactor(together, spec))
    write_plan(refactor(apart, spec, steps=range(1, 2)))
    write_plan(refactor(apart, spec, steps=range(2, 3)))
    for rel in ("sglang/srt/cache/slots.py", "sglang/srt/cache/users.py"):
        assert (together / rel).read_text() == (apart / rel).read_text()
