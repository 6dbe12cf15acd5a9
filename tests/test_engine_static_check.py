"""equivalence.engine.judge.static_check: the moved code against the old body, modulo the map, and the
moved module globals value for value."""

from __future__ import annotations

import json

import pytest

from codemods.extract_kv_dtype import refactor
from pysource.extraction import locate
from equivalence.engine.judge.static_check import StaticCheckError, check_trees, static_check, to_markdown
from tests.codemod_expected import SHAPES, TREES, expected_files
from tests.engine_examples import EXTRACTIONS, RUNNER, TARGET, extracted_steps, step_tree, write_tree
from tests.releases import release_root

MR = "sglang/srt/model_executor/model_runner.py"
KV = "sglang/srt/mem_cache/kv_cache_dtype.py"


def _check(tmp_path, after_step: int, edits=None, before_edits=None, method="bind"):
    before = locate(step_tree(tmp_path / "before", 0, before_edits), RUNNER, "Runner", method)
    after = locate(step_tree(tmp_path / "after", after_step, edits), RUNNER, "Runner", method)
    return static_check(before, after)


def _kinds(report) -> list[tuple[str, int | None, int | None]]:
    return [(r.kind, r.before_line, r.after_line) for r in report.residuals]


# --- a faithful extraction -----------------------------------------------------------------


@pytest.mark.parametrize("step", [1, 2, 3], ids=["static-in-place", "moved", "wrapper"])
def test_faithful_extraction_has_no_residual(tmp_path, step):
    report = _check(tmp_path, step)
    assert [(e.name, e.kind, e.expression) for e in report.map] == [
        ("tp_rank", "parameter", "self.tp_rank"), ("tp_size", "parameter", "self.tp_size"),
        ("cpu", "result", "self.cpu")]
    assert report.residuals == []
    assert report.dropped_return == ("L26: return cpu" if step == 1 else "L18: return cpu")
    assert {c.name: c.equal for c in report.constants} == {"LIMITS": True, "logger": True, "os": True, "logging": True}
    assert not report.divergent


def test_logger_moved_says_its_name_follows_the_module(tmp_path):
    (logger,) = [c for c in _check(tmp_path, 3).constants if c.name == "logger"]
    assert logger.detail == "reads __name__: pkg.runner before, pkg.binding after"


# --- residual differences, one kind each ----------------------------------------------------

BIND_CALL = "binding.bind(tp_rank=self.tp_rank, tp_size=self.tp_size)"


@pytest.mark.parametrize("edits, expected", [
    ({RUNNER: (BIND_CALL, "binding.bind(tp_rank=self.tp_size, tp_size=self.tp_size)")},
     [("mapping-mismatch", 21, 14), ("mapping-mismatch", 23, 16)]),
    ({RUNNER: ("self.cpu = binding", "self.cpu_mutant = binding")},
     [("mapping-mismatch", 21, 14), ("mapping-mismatch", 23, 16), ("mapping-mismatch", 24, 17)]),
    ({RUNNER: ("self.cpu = binding", "_ = binding")},
     [("mapping-mismatch", 21, 14), ("mapping-mismatch", 23, 16), ("mapping-mismatch", 24, 17)]),
    ({TARGET: ("cpu = tp_rank\n", "cpu = tp_rank + 1\n")}, [("changed", 21, 14)]),
    ({TARGET: ("    return cpu\n", '    logger.info("done")\n    return cpu\n')}, [("added", None, 18)]),
    ({TARGET: ('        logger.warning("bound %s", cpu)\n', "")}, [("removed", 24, None)]),
    ({TARGET: ("Pick this rank's CPU.", "Pick a CPU.")}, [("docstring", 17, 10)]),
    ({TARGET: ('if mode == "all":', 'if mode == "any":')}, [("changed", 19, 12)]),
], ids=["parameter-from-another-attribute", "result-to-another-attribute", "write-dropped", "statement-changed",
        "statement-added", "statement-removed", "docstring-changed", "test-changed"])
def test_residuals(tmp_path, edits, expected):
    report = _check(tmp_path, 3, edits)
    assert _kinds(report) == expected
    # a docstring's text is documentation: listed, explained; every other residual is not
    assert [r.explained for r in report.residuals] == [kind in ("docstring", "applied-by-caller")
                                                       for kind, _, _ in expected]
    assert not report.divergent  # residuals are listed, not failures by themselves


def test_mapping_mismatch_names_what_the_old_body_read(tmp_path):
    report = _check(tmp_path, 3, {RUNNER: (BIND_CALL, "binding.bind(tp_rank=self.tp_size, tp_size=self.tp_size)")})
    entry = next(e for e in report.map if e.name == "tp_rank")
    assert (entry.expression, entry.before_reads) == ("self.tp_size", ["self.tp_rank"])
    first = report.residuals[0]
    assert (first.before, first.after, first.after_mapped) == (
        "self.cpu = self.tp_rank", "cpu = tp_rank", "self.cpu = self.tp_size")


def test_elif_added_in_the_middle_is_one_added_branch(tmp_path):
    before = '    if mode == "all":\n'
    report = _check(tmp_path, 3, {TARGET: (before, '    if mode == "none":\n        cpu = None\n    elif mode == "all":\n')},
                    before_edits={RUNNER: ('if mode == "all":', 'if mode == "all":')})
    assert _kinds(report) == [("added", None, 12)]
    assert report.residuals[0].after == 'if mode == "none":\n        cpu = None'


def test_function_level_import_changed(tmp_path):
    body = '        """Pick this rank\'s CPU."""\n'
    report = _check(tmp_path, 3, {TARGET: ('    """Pick this rank\'s CPU."""\n',
                                           '    """Pick this rank\'s CPU."""\n    from pkg.b import helper\n')},
                    before_edits={RUNNER: (body, body + "        from pkg.a import helper\n")})
    assert _kinds(report) == [("import", 18, 11)]


def test_function_level_import_kept_is_compared_by_what_it_imports(tmp_path):
    body = '        """Pick this rank\'s CPU."""\n'
    report = _check(tmp_path, 3, {TARGET: ('    """Pick this rank\'s CPU."""\n',
                                           '    """Pick this rank\'s CPU."""\n    from pkg.a import helper\n\n    helper()\n')},
                    before_edits={RUNNER: (body, body + "        from pkg.a import helper\n\n        helper()\n")})
    assert report.residuals == [] and not report.divergent
    # the name the import binds is a local of both functions, compared as the import statement it
    # is: never a module global (issue 17)
    assert "helper" not in {c.name for c in report.constants}


@pytest.mark.parametrize("binding", [
    "try:\n            pass\n        except ValueError as e:\n            print(e)\n",
    "for e in range(2):\n            print(e)\n",
    "with open('x') as e:\n            print(e)\n",
    "def e():\n            return 1\n\n        print(e)\n",
    "class e:\n            pass\n\n        print(e)\n",
    "print([e for e in range(3)])\n",
    "if (e := 1):\n            print(e)\n",
    "import os as e\n\n        print(e)\n",
], ids=["except-as", "loop", "with-as", "def", "class", "comprehension", "walrus", "import"])
def test_a_name_bound_locally_is_never_a_module_global(tmp_path, binding):
    body = '        """Pick this rank\'s CPU."""\n'
    report = _check(tmp_path, 3, {TARGET: ('    """Pick this rank\'s CPU."""\n',
                                           '    """Pick this rank\'s CPU."""\n    ' + binding.replace("\n        ", "\n    "))},
                    before_edits={RUNNER: (body, body + "        " + binding)})
    assert "e" not in {c.name for c in report.constants}
    assert report.residuals == [] and not report.divergent


TARGET_OWN = "\n\ndef helper():\n    return 1\n\n\ndef other():\n    return 2\n"


@pytest.mark.parametrize("called, same", [("helper", True), ("other", False)], ids=["its-own-global", "another-function"])
def test_import_from_the_target_is_its_own_global_once_moved(tmp_path, called, same):
    body = '        """Pick this rank\'s CPU."""\n'
    before = step_tree(tmp_path / "before", 0, {RUNNER: (body, body + "        from pkg.binding import helper\n\n"
                                                           "        helper()\n")})
    write_tree(before, {TARGET: TARGET_OWN})
    after = step_tree(tmp_path / "after", 3, {TARGET: ('    """Pick this rank\'s CPU."""\n',
                                                     f'    """Pick this rank\'s CPU."""\n    {called}()\n')})
    (after / TARGET).write_text((after / TARGET).read_text() + TARGET_OWN)
    report = static_check(locate(before, RUNNER, "Runner", "bind"), locate(after, RUNNER, "Runner", "bind"))
    checked = {c.name: (c.equal, c.detail) for c in report.constants}
    if same:  # the import in the old body is the module's own def: no difference
        assert report.residuals == [] and not report.divergent
        assert checked["helper"] == (True, "the same object: pkg.binding.helper")
    else:  # a different function: the import is gone for nothing, the global is not the old one
        assert report.divergent and not checked["other"][0]
        assert [r.kind for r in report.residuals] == ["import", "changed"]


def test_relative_function_level_import_resolved_per_module(tmp_path):
    body = '        """Pick this rank\'s CPU."""\n'
    report = _check(tmp_path, 3, {TARGET: ('    """Pick this rank\'s CPU."""\n',
                                           '    """Pick this rank\'s CPU."""\n    from .a import helper\n')},
                    before_edits={RUNNER: (body, body + "        from pkg.a import helper\n")})
    assert report.residuals == []


def test_parameter_default_changed(tmp_path):
    report = _check(tmp_path, 3, {RUNNER: ("def bind(self):\n        self.cpu = binding.bind(tp_rank=self.tp_rank, tp_size=self.tp_size)",
                                           "def bind(self, retries=4):\n        self.cpu = binding.bind(tp_rank=self.tp_rank, tp_size=self.tp_size, retries=retries)"),
                                  TARGET: ("def bind(*, tp_rank, tp_size):", "def bind(*, tp_rank, tp_size, retries):")},
                    before_edits={RUNNER: ("def bind(self):", "def bind(self, retries=3):")})
    assert [(r.kind, r.before, r.after) for r in report.residuals] == [("default", "retries=3", "retries=4")]
    assert ("retries", "own parameter", "retries") in [(e.name, e.kind, e.expression) for e in report.map]


def test_pass_self_maps_the_name_to_self(tmp_path):
    function = ("def bind(*, runner):\n    \"\"\"Pick this rank's CPU.\"\"\"\n    mode = os.environ.get(\"BIND\", \"all\")\n"
                "    if mode == \"all\":\n        assert runner.tp_size <= LIMITS[\"large\"], \"too many ranks\"\n"
                "        cpu = runner.tp_rank\n    else:\n        cpu = mode.split(\"|\")[runner.tp_rank]\n"
                "        logger.warning(\"bound %s\", cpu)\n    return cpu\n")
    after = step_tree(tmp_path / "after", 3, {RUNNER: (BIND_CALL, "binding.bind(runner=self)")})
    text = (after / TARGET).read_text()
    (after / TARGET).write_text(text[:text.index("def bind(")] + function)
    report = static_check(locate(step_tree(tmp_path / "before", 0), RUNNER, "Runner", "bind"),
                          locate(after, RUNNER, "Runner", "bind"))
    assert [(e.name, e.kind, e.expression) for e in report.map][0] == ("runner", "instance", "self")
    assert report.residuals == []


def test_narrowed_parameter(tmp_path):
    before = {"pkg/runner.py": '''\
        class Runner:
            def pick(self):
                if self.server_args.mode == "fast":
                    self.speed = 2
                else:
                    self.speed = 1
        '''}
    after = {"pkg/runner.py": '''\
        from pkg import picking


        class Runner:
            def pick(self):
                self.speed = picking.pick(server_args_mode=self.server_args.mode)
        ''', "pkg/picking.py": '''\
        def pick(*, server_args_mode):
            if server_args_mode == "fast":
                speed = 2
            else:
                speed = 1
            return speed
        '''}
    report = static_check(locate(write_tree(tmp_path / "b", before), "pkg/runner.py", "Runner", "pick"),
                          locate(write_tree(tmp_path / "a", after), "pkg/runner.py", "Runner", "pick"))
    assert [(e.name, e.expression) for e in report.map] == [("server_args_mode", "self.server_args.mode"),
                                                             ("speed", "self.speed")]
    assert report.residuals == [] and report.constants == []


def test_static_method_never_called_cannot_be_mapped(tmp_path):
    root = step_tree(tmp_path / "after", 1, {RUNNER: ("self.cpu = self.bind(tp_rank=self.tp_rank, tp_size=self.tp_size)",
                                                       "pass")})
    with pytest.raises(StaticCheckError, match=r"/after/pkg/runner.py:17: nothing calls bind, so no call"):
        static_check(locate(step_tree(tmp_path / "before", 0), RUNNER, "Runner", "bind"),
                     locate(root, RUNNER, "Runner", "bind"))


# --- module globals -----------------------------------------------------------------------


@pytest.mark.parametrize("old, new, detail", [
    ('LIMITS = {"small": 1, "large": 4}', 'LIMITS = {"small": 1, "large": 8}',
     "entry 'large': 4 (line 6) before, 8 (line 6) after"),
    ('LIMITS = {"small": 1, "large": 4}', 'LIMITS = {"small": 1, "large": 4, "huge": 9}', 'entry "huge" (line 6) added'),
    ('LIMITS = {"small": 1, "large": 4}', 'LIMITS = {"large": 4}', 'entry "small" (line 6) removed'),
    ('LIMITS = {"small": 1, "large": 4}', 'LIMITS = {"large": 4, "small": 1}', "entries in another order"),
    ('LIMITS = {"small": 1, "large": 4}', 'LIMITS = dict(small=1, large=4)', "the value differs"),
    ("import os\n", "import posixpath as os\n", "before os, after posixpath"),
    ('LIMITS = {"small": 1, "large": 4}', 'LIMITS = {"small": 1, "large": 4}\nLIMITS["large"] = 5',
     "bound 1 time(s) before, 2 after"),
], ids=["dict-value", "dict-entry-added", "dict-entry-removed", "dict-order", "other-expression",
        "import-of-another-module", "rebound"])
def test_changed_module_global_is_divergent(tmp_path, old, new, detail):
    report = _check(tmp_path, 3, {TARGET: (old, new)})
    changed = [c for c in report.constants if not c.equal]
    assert [c.detail for c in changed] == [detail]
    assert report.divergent


def test_list_element_changed(tmp_path):
    report = _check(tmp_path, 3, {TARGET: ('LIMITS = {"small": 1, "large": 4}', 'LIMITS = {"small": 1, "large": [4, 5]}')},
                    before_edits={RUNNER: ('LIMITS = {"small": 1, "large": 4}', 'LIMITS = {"small": 1, "large": [4, 6]}')})
    assert [c.detail for c in report.constants if not c.equal] == ["entry 'large': [4, 6] (line 6) before, [4, 5] (line 6) after"]


def test_global_missing_from_the_target_raises_name_error(tmp_path):
    report = _check(tmp_path, 3, {TARGET: ('LIMITS = {"small": 1, "large": 4}\n', "")})
    (limits,) = [c for c in report.constants if c.name == "LIMITS"]
    assert (limits.equal, limits.detail) == (False, f"not bound in {TARGET}: reading it raises NameError")


def test_global_only_the_target_binds(tmp_path):
    report = _check(tmp_path, 3, {TARGET: ('if mode == "all":', 'if mode == "all" and FAST:')})
    (tmp_path / "after" / TARGET).write_text((tmp_path / "after" / TARGET).read_text().replace("import os\n", "import os\nFAST = True\n"))
    report = static_check(locate(tmp_path / "before", RUNNER, "Runner", "bind"), locate(tmp_path / "after", RUNNER, "Runner", "bind"))
    (fast,) = [c for c in report.constants if c.name == "FAST"]
    assert (fast.equal, fast.detail) == (False, f"not bound in {RUNNER}")
    assert _kinds(report) == [("changed", 19, 13)]


def test_globals_a_binding_reads_are_compared_and_expanded(tmp_path):
    """`USE = os.sep and _is_hip` (with `_is_hip = is_hip()`) against `USE = os.sep and is_hip()`:
    equal once expanded; `is_hip` itself is compared in turn."""
    head, test = "import os\n", 'if mode == "all":'
    before = step_tree(tmp_path / "b", 0, {RUNNER: (head, head + "from pkg.platform import is_hip\n"
                                                    "_is_hip = is_hip()\nUSE = os.sep and _is_hip\n")})
    after = step_tree(tmp_path / "a", 3, {TARGET: (head, head + "from pkg.platform import is_hip\nUSE = os.sep and is_hip()\n")})
    for root, rel in ((before, RUNNER), (after, TARGET)):
        (root / rel).write_text((root / rel).read_text().replace(test, 'if mode == "all" and USE:'))
        write_tree(root, {"pkg/platform.py": "def is_hip():\n    return False\n"})
    report = static_check(locate(before, RUNNER, "Runner", "bind"), locate(after, RUNNER, "Runner", "bind"))
    checks = {c.name: (c.equal, c.detail) for c in report.constants}
    assert checks["USE"] == (True, "equal once the globals it reads are expanded to their values")
    assert checks["is_hip"] == (True, "the same object: pkg.platform.is_hip")
    assert not report.divergent and report.residuals == []


# --- report --------------------------------------------------------------------------------


def test_json_and_markdown(tmp_path):
    report = _check(tmp_path, 3, {RUNNER: (BIND_CALL, "binding.bind(tp_rank=self.tp_size, tp_size=self.tp_size)"),
                                  TARGET: ('"large": 4', '"large": 5')})
    data = json.loads(json.dumps(report.to_json()))
    assert set(data) == {"before", "after", "map", "dropped_return", "residuals", "constants", "divergent"}
    assert data["divergent"] is True
    assert data["residuals"][0] == {"kind": "mapping-mismatch", "before_line": 21, "after_line": 14,
                                    "before": "self.cpu = self.tp_rank", "after": "cpu = tp_rank",
                                    "after_mapped": "self.cpu = self.tp_size", "note": "", "explained": False,
                                    "classification": "not explained by the extraction: a change only the runs can judge"}
    assert data["map"][0] == {"name": "tp_rank", "kind": "parameter", "expression": "self.tp_size",
                              "before_reads": ["self.tp_rank"]}
    text = to_markdown(report)
    assert text.startswith("### Static check: **divergent** (a module global changed)")
    assert "| `tp_rank` | parameter | `self.tp_size` (old body read: self.tp_rank) |" in text
    assert ("| mapping-mismatch | L21 `self.cpu = self.tp_rank` | L14 `cpu = tp_rank` | `self.cpu = self.tp_size` "
            "| not explained by the extraction") in text
    assert "| `LIMITS` | **no** | 6-6 / 6-6 | entry 'large': 4 (line 6) before, 5 (line 6) after |" in text


# --- the kv fixtures and real releases -------------------------------------------------------


@pytest.mark.parametrize("step", [1, 2, 3, 4])
def test_kv_fixture_record_dflash(step):
    before = locate(TREES / "record_dflash", MR, "ModelRunner", "configure_kv_cache_dtype")
    after = locate(TREES / "record_dflash", MR, "ModelRunner", "configure_kv_cache_dtype",
                   overrides=expected_files("record_dflash", step))
    report = static_check(before, after)
    params = [e.name for e in report.map if e.kind == "parameter"]
    assert params == ["server_args_kv_cache_dtype" if step == 4 else "server_args", "model", "model_dtype",
                      "is_draft_worker", "is_dflash", "speculative_draft_attention_backend"]
    assert [(e.name, e.expression) for e in report.map if e.kind == "result"] == [
        ("resolved_kv_cache_dtype", "resolved_kv_cache_dtype"), ("kv_cache_dtype", "self.kv_cache_dtype")]
    assert [r.kind for r in report.residuals] == ["applied-by-caller", "applied-by-caller"]
    assert all(c.equal for c in report.constants) and not report.divergent


@pytest.fixture(scope="module")
def codemod_on_0_5_15_post1():
    root = release_root("0.5.15.post1")
    plan = refactor(root)
    return root, {str(path.relative_to(plan.root)): text for path, text in plan.changes.items()}


def test_release_codemod_output(codemod_on_0_5_15_post1):
    root, overrides = codemod_on_0_5_15_post1
    before = locate(root, MR, "ModelRunner", "configure_kv_cache_dtype")
    report = static_check(before, locate(root, MR, "ModelRunner", "configure_kv_cache_dtype", overrides=overrides))
    assert [(e.name, e.kind, e.expression) for e in report.map] == [
        ("server_args_kv_cache_dtype", "parameter", "self.server_args.kv_cache_dtype"),
        ("model", "parameter", "self.model"), ("model_dtype", "parameter", "self.dtype"),
        ("resolved_kv_cache_dtype", "result", "resolved_kv_cache_dtype"),
        ("kv_cache_dtype", "result", "self.kv_cache_dtype")]
    record = [r for r in report.residuals if r.before]
    assert [r.kind for r in report.residuals] == ["applied-by-caller", "applied-by-caller"]
    assert "_record_kv_cache_dtype" in record[0].before and record[0].after.startswith("resolved_kv_cache_dtype = ")
    assert {c.name for c in report.constants} >= {"TORCH_DTYPE_TO_KV_CACHE_STR", "_is_hip", "fp8_dtype", "logger"}
    assert all(c.equal for c in report.constants) and not report.divergent


def test_release_codemod_output_with_an_entry_added_to_the_moved_table(codemod_on_0_5_15_post1):
    root, overrides = codemod_on_0_5_15_post1
    edited = overrides[KV].replace('torch.bfloat16: "bf16",', 'torch.bfloat16: "bf16",\n    torch.float16: "fp16",')
    assert edited != overrides[KV]
    report = static_check(locate(root, MR, "ModelRunner", "configure_kv_cache_dtype"),
                          locate(root, MR, "ModelRunner", "configure_kv_cache_dtype", overrides={**overrides, KV: edited}))
    (table,) = [c for c in report.constants if not c.equal]
    assert table.name == "TORCH_DTYPE_TO_KV_CACHE_STR" and table.detail.startswith("entry torch.float16 (line ")
    assert report.divergent


@pytest.mark.parametrize("method, reads", [
    ("init_threads_binding", {"tp_rank": ("self.ps.tp_rank", ["self.tp_rank"]),
                              "tp_size": ("self.ps.tp_size", ["self.tp_size"])}),
    ("check_quantized_moe_compatibility", {"model_config": ("self.model_config", []),
                                           "tp_size": ("self.ps.tp_size", ["self.tp_size"]),
                                           "moe_ep_size": ("self.ps.moe_ep_size", ["self.moe_ep_size"]),
                                           "moe_dp_size": ("self.ps.moe_dp_size", ["self.moe_dp_size"])}),
])
def test_release_upstream_reads_the_parallel_state_object(method, reads):
    """0.5.16 passes `self.ps.tp_size` where 0.5.15.post1's body read `self.tp_size`: every statement
    reading one is a mapping mismatch, nothing else differs, the module globals are equal."""
    before = locate(release_root("0.5.15.post1"), MR, "ModelRunner", method)
    report = static_check(before, locate(release_root("0.5.16"), MR, "ModelRunner", method))
    assert {e.name: (e.expression, e.before_reads) for e in report.map if e.kind == "parameter"} == reads
    assert report.residuals and {r.kind for r in report.residuals} == {"mapping-mismatch"}
    assert all(c.equal for c in report.constants) and not report.divergent


@pytest.mark.parametrize("pair", [(1, 2), (2, 3), (3, 4)], ids=["step1-2", "step2-3", "step3-4"])
@pytest.mark.parametrize("shape", SHAPES)
def test_kv_fixture_consecutive_steps_have_no_residual(shape, pair):
    before, after = pair
    report = check_trees(TREES / shape, TREES / shape, MR, "ModelRunner", "configure_kv_cache_dtype",
                         before_overrides=expected_files(shape, before), after_overrides=expected_files(shape, after))
    assert report.residuals == [] and all(c.equal for c in report.constants)



# --- codemods.extract_method's output on real releases -----------------------------------------


@pytest.mark.parametrize("method", sorted(EXTRACTIONS))
@pytest.mark.parametrize("version", ["0.5.14", "0.5.15.post1"])
def test_release_extract_method_every_step(version, method):
    """Each step's output against the original: every parameter stands for the attribute it is
    named after, no residual difference, every module global equal."""
    root = release_root(version)
    before = locate(root, MR, "ModelRunner", method)
    for step, overrides in enumerate(extracted_steps(root, method), start=1):
        report = static_check(before, locate(root, MR, "ModelRunner", method, overrides=overrides))
        assert (step, report.residuals) == (step, [])
        assert all(c.equal for c in report.constants) and report.constants
        assert all(e.expression == f"self.{e.name}" for e in report.map) and report.map


def test_release_extract_method_pass_self():
    root = release_root("0.5.15.post1")
    overrides = extracted_steps(root, "init_threads_binding", "model_runner")[-1]
    report = static_check(locate(root, MR, "ModelRunner", "init_threads_binding"),
                          locate(root, MR, "ModelRunner", "init_threads_binding", overrides=overrides))
    # the function writes model_runner.local_omp_cpuid itself: nothing is returned
    assert [(e.name, e.kind, e.expression) for e in report.map] == [("model_runner", "instance", "self")]
    assert report.residuals == [] and not report.divergent


def test_a_moved_functions_standard_library_imports_compare_in_any_order():
    """isort orders the moved function's own imports: a run of standard-library imports is compared
    in one order; an import of the package, or a run that binds a name twice, keeps its order."""
    import ast

    from equivalence.engine.judge.static_check import _stdlib_imports_sorted

    def body(src: str) -> list[str]:
        return [ast.unparse(s) for s in _stdlib_imports_sorted(ast.parse(src).body)]

    assert body("import os\nimport json\nx = 1") == body("import json\nimport os\nx = 1")
    assert body("from sglang import b\nfrom sglang import a") == ["from sglang import b", "from sglang import a"]
    assert body("import os.path as p\nimport json as p") == ["import os.path as p", "import json as p"]
    assert body("import os\nx = 1\nimport json") == ["import os", "x = 1", "import json"]
