"""pysource.extraction: where a version keeps CLASS.METHOD's logic."""

from __future__ import annotations

import ast

import pytest

from pysource.extraction import LocateError, locate
from tests.codemod_expected import SHAPES, TREES, expected_files
from tests.engine_examples import RUNNER, TARGET, step_tree, write_tree
from tests.releases import release_root

MR = "sglang/srt/model_executor/model_runner.py"


def _src(node: ast.AST) -> str:
    return ast.unparse(node)


# --- the four shapes on the small example ------------------------------------------------


@pytest.mark.parametrize("step, shape", [(0, "method"), (1, "static"), (2, "moved"), (3, "wrapper")],
                         ids=["original", "static-in-place", "moved", "wrapper"])
def test_each_step_has_its_shape(tmp_path, step, shape):
    ext = locate(step_tree(tmp_path, step), RUNNER, "Runner", "bind")
    assert ext.shape == shape
    assert ext.class_node.name == "Runner"
    core, rel = ext.core
    assert core.name == "bind"
    assert rel == (TARGET if step >= 2 else RUNNER)
    (site,) = ext.call_sites
    assert site.method == "__init__"
    assert site.calls == ("function" if step == 2 else "method")
    assert site.free_names == []


def test_original(tmp_path):
    ext = locate(step_tree(tmp_path, 0), RUNNER, "Runner", "bind")
    assert (ext.method_kind, ext.wrapper, ext.function, ext.call, ext.target_rel) == ("instance", None, None, None, None)
    assert _src(ext.call_sites[0].statements[0]) == "self.bind()"


def test_static_in_place_call_comes_from_the_call_site(tmp_path):
    ext = locate(step_tree(tmp_path, 1), RUNNER, "Runner", "bind")
    assert ext.method_kind == "static"
    assert ext.call.where == "call site" and ext.call.method == "__init__"
    assert ext.call.keywords == {"tp_rank": "self.tp_rank", "tp_size": "self.tp_size"}
    assert (ext.call.result.how, ext.call.result.targets) == ("assign", ["self.cpu"])


def test_moved_resolves_the_alias(tmp_path):
    ext = locate(step_tree(tmp_path, 2), RUNNER, "Runner", "bind")
    assert (ext.method, ext.alias, ext.target_module, ext.target_rel) == (None, "binding", "pkg.binding", TARGET)
    assert ext.function.lineno == 9 and ext.function.args.kwonlyargs[0].arg == "tp_rank"
    assert ext.call.where == "call site"
    assert ext.call.keywords == {"tp_rank": "self.tp_rank", "tp_size": "self.tp_size"}


def test_wrapper_call_and_result(tmp_path):
    ext = locate(step_tree(tmp_path, 3), RUNNER, "Runner", "bind")
    assert ext.wrapper is ext.method and ext.method_kind == "instance"
    assert ext.call.where == "wrapper" and ext.call.method == "bind" and ext.call.file_rel == RUNNER
    assert (ext.call.result.how, ext.call.result.targets, ext.call.result.unpacked) == ("assign", ["self.cpu"], False)
    assert _src(ext.call_sites[0].statements[0]) == "self.bind()"


def test_overrides_replace_the_files(tmp_path):
    root = step_tree(tmp_path, 0)
    ext = locate(root, RUNNER, "Runner", "bind", overrides={RUNNER: step_tree(tmp_path / "s3", 3).joinpath(RUNNER).read_text(),
                                                            TARGET: (tmp_path / "s3" / TARGET).read_text()})
    assert ext.shape == "wrapper" and not (root / TARGET).exists()


# --- import forms ------------------------------------------------------------------------

HELPER = "def work(*, a):\n    return a\n"


def _wrapper_tree(tmp_path, import_line: str, callee: str, extra: dict[str, str] | None = None, indent_import=False):
    body = f"        {import_line}\n" if indent_import else ""
    head = "" if indent_import else f"{import_line}\n"
    runner = (f"{head}\n\nclass Runner:\n    def __init__(self):\n        self.work()\n\n"
              f"    def work(self):\n{body}        self.out = {callee}(a=self.a)\n")
    files = {"pkg/sub/runner.py": runner, "pkg/tools/helpers.py": HELPER, **(extra or {})}
    return write_tree(tmp_path, files)


@pytest.mark.parametrize("import_line, callee, alias", [
    ("from pkg.tools import helpers", "helpers.work", "helpers"),
    ("from pkg.tools import helpers as h", "h.work", "h"),
    ("import pkg.tools.helpers as h", "h.work", "h"),
    ("import pkg.tools.helpers", "pkg.tools.helpers.work", "pkg.tools.helpers"),
    ("from ..tools import helpers", "helpers.work", "helpers"),
    ("from .. import tools", "tools.helpers.work", "tools.helpers"),
    ("from pkg.tools.helpers import work", "work", "work"),
    ("from pkg.tools.helpers import work as do_work", "do_work", "do_work"),
], ids=["from-package-import-module", "as-alias", "import-dotted-as", "import-dotted", "relative-module",
        "relative-package-chain", "symbol", "symbol-as"])
def test_import_forms(tmp_path, import_line, callee, alias):
    ext = locate(_wrapper_tree(tmp_path, import_line, callee), "pkg/sub/runner.py", "Runner", "work")
    assert (ext.shape, ext.alias, ext.target_module, ext.target_rel) == ("wrapper", alias, "pkg.tools.helpers",
                                                                         "pkg/tools/helpers.py")
    assert ext.function.name == "work"


def test_function_level_import_in_the_wrapper(tmp_path):
    root = _wrapper_tree(tmp_path, "from pkg.tools import helpers", "helpers.work", indent_import=True)
    assert locate(root, "pkg/sub/runner.py", "Runner", "work").target_rel == "pkg/tools/helpers.py"


def test_reexport_through_a_package_init(tmp_path):
    root = _wrapper_tree(tmp_path, "from pkg import tools", "tools.work",
                         {"pkg/tools/__init__.py": "from .helpers import work\n"})
    ext = locate(root, "pkg/sub/runner.py", "Runner", "work")
    assert (ext.target_module, ext.target_rel) == ("pkg.tools", "pkg/tools/helpers.py")


def test_function_name_given(tmp_path):
    root = _wrapper_tree(tmp_path, "from pkg.tools import helpers", "helpers.work")
    (root / "pkg/tools/helpers.py").write_text("def other(*, a):\n    return a\n")
    (root / "pkg/sub/runner.py").write_text((root / "pkg/sub/runner.py").read_text().replace("helpers.work", "helpers.other"))
    ext = locate(root, "pkg/sub/runner.py", "Runner", "work", "other")
    assert (ext.function.name, ext.function_name_inferred) == ("other", False)


def test_function_name_inferred_from_the_only_keyword_only_call(tmp_path):
    root = _wrapper_tree(tmp_path, "from pkg.tools import helpers", "helpers.other",
                         {"pkg/tools/helpers.py": "def other(*, a):\n    return a\n"})
    ext = locate(root, "pkg/sub/runner.py", "Runner", "work")
    assert (ext.shape, ext.function_name, ext.function_name_inferred) == ("wrapper", "other", True)


@pytest.mark.parametrize("call", ["helpers.other(a=self.a)", "helpers.other(self.a)", "helpers.other(self)"])
def test_function_name_inferred_from_a_call_passing_what_a_wrapper_passes(tmp_path, call):
    """A positional-or-keyword function (`--positional`, or upstream's own hand) handed the
    method's parameters or `self.` chains: that call is the wrapper's."""
    root = _wrapper_tree(tmp_path, "from pkg.tools import helpers", "helpers.other",
                         {"pkg/tools/helpers.py": "def other(a):\n    return a\n"})
    runner = root / "pkg/sub/runner.py"
    runner.write_text(runner.read_text().replace("helpers.other(a=self.a)", call))
    ext = locate(root, "pkg/sub/runner.py", "Runner", "work")
    assert (ext.shape, ext.function_name, ext.function_name_inferred) == ("wrapper", "other", True)


@pytest.mark.parametrize("call", ["helpers.other(a=self.a + 1)", "helpers.other(self.a, *self.rest)",
                                  "helpers.other(len(self.a))"])
def test_no_inference_when_a_positional_callee_is_handed_computed_values(tmp_path, call):
    root = _wrapper_tree(tmp_path, "from pkg.tools import helpers", "helpers.other",
                         {"pkg/tools/helpers.py": "def other(a, *rest):\n    return a\n"})
    runner = root / "pkg/sub/runner.py"
    runner.write_text(runner.read_text().replace("helpers.other(a=self.a)", call))
    assert locate(root, "pkg/sub/runner.py", "Runner", "work").shape == "method"


def test_no_inference_of_a_function_with_positional_only_parameters(tmp_path):
    root = _wrapper_tree(tmp_path, "from pkg.tools import helpers", "helpers.other",
                         {"pkg/tools/helpers.py": "def other(a, /):\n    return a\n"})
    runner = root / "pkg/sub/runner.py"
    runner.write_text(runner.read_text().replace("helpers.other(a=self.a)", "helpers.other(self.a)"))
    assert locate(root, "pkg/sub/runner.py", "Runner", "work").shape == "method"


def test_calls_of_other_packages_are_not_extractions(tmp_path):
    root = _wrapper_tree(tmp_path, "import torch", "torch.work")
    assert locate(root, "pkg/sub/runner.py", "Runner", "work").shape == "method"


# --- call sites --------------------------------------------------------------------------


def test_call_site_with_follow_up_statements_and_free_names(tmp_path):
    runner = '''\
        from pkg import helpers


        class Runner:
            def setup(self, flag):
                limit = 3
                if flag:
                    first, self.y = helpers.work(a=self.a, limit=limit)
                    if first is not None:
                        self.record(first, flag)
                    self.done = True

            def again(self):
                self.z = helpers.work(a=1, limit=2)
        '''
    root = write_tree(tmp_path, {"pkg/runner.py": runner, "pkg/helpers.py": "def work(*, a, limit):\n    return a, limit\n"})
    ext = locate(root, "pkg/runner.py", "Runner", "work")
    assert ext.shape == "moved"
    first, second = ext.call_sites
    assert (first.method, first.line, len(first.statements), first.free_names) == ("setup", 8, 2, ["flag", "limit"])
    assert (second.method, second.line, second.free_names) == ("again", 14, [])
    result = ext.call.result
    assert (result.how, result.targets, result.unpacked) == ("assign", ["first", "self.y"], True)
    assert [_src(s) for s in result.follow_up] == ["if first is not None:\n    self.record(first, flag)"]
    assert ext.call.keywords == {"a": "self.a", "limit": "limit"}
    assert [_src(s) for s in ext.call.preamble] == []


@pytest.mark.parametrize("statement, how", [
    ("helpers.work(a=self.a)", "discard"),
    ("return helpers.work(a=self.a)", "return"),
    ("self.x: int = helpers.work(a=self.a)", "assign"),
    ("self.x = max(1, helpers.work(a=self.a))", "expression"),
], ids=["discard", "return", "annotated", "inside-expression"])
def test_result_use(tmp_path, statement, how):
    root = write_tree(tmp_path, {
        "pkg/runner.py": f"from pkg import helpers\n\nclass Runner:\n    def work(self):\n        {statement}\n",
        "pkg/helpers.py": HELPER})
    assert locate(root, "pkg/runner.py", "Runner", "work").call.result.how == how


def test_pass_self_keyword(tmp_path):
    root = _wrapper_tree(tmp_path, "from pkg.tools import helpers", "helpers.work")
    path = root / "pkg/sub/runner.py"
    path.write_text(path.read_text().replace("(a=self.a)", "(model_runner=self, a=self.a)"))
    assert locate(root, "pkg/sub/runner.py", "Runner", "work").call.keywords == {"model_runner": "self", "a": "self.a"}


# --- errors ------------------------------------------------------------------------------


def _error(root, rel, cls, method, function=None) -> str:
    with pytest.raises(LocateError) as e:
        locate(root, rel, cls, method, function)
    return str(e.value)


def test_error_class_missing(tmp_path):
    root = step_tree(tmp_path, 0)
    assert _error(root, RUNNER, "Other", "bind") == f"{root / RUNNER}: no class Other at module level"


def test_error_method_missing_and_no_function(tmp_path):
    root = step_tree(tmp_path, 0)
    msg = _error(root, RUNNER, "Runner", "absent")
    assert msg == (f"{root / RUNNER}:9: Runner has no method absent and no call of an extracted absent(...) "
                   f"(if the function has another name, pass --name FUNCTION)")


@pytest.mark.parametrize("edit, where", [
    (("from pkg import binding", "from pkg import bindings"), 9),
    (("from pkg import binding\n", "\n"), 9),
], ids=["import-of-missing-module", "alias-never-imported"])
def test_error_alias_not_resolvable(tmp_path, edit, where):
    root = step_tree(tmp_path, 2, {RUNNER: edit})
    msg = _error(root, RUNNER, "Runner", "bind")
    assert msg.startswith(f"{root / RUNNER}:{where}: binding.bind(...): binding is not a module of this tree")


def test_error_function_missing_in_target(tmp_path):
    root = step_tree(tmp_path, 3, {TARGET: ("def bind(", "def bind_cpu(")})
    msg = _error(root, RUNNER, "Runner", "bind")
    assert msg == f"{root / TARGET}: no module-level function bind (called at {root / RUNNER}:12)"


@pytest.mark.parametrize("rel, addition, what", [
    (RUNNER, "\n    def bind(self):\n        pass\n", "Runner.bind"),
    (TARGET, "\n\ndef bind(*, tp_rank, tp_size):\n    return 0\n", "function bind"),
    (RUNNER, "\n\nclass Runner:\n    pass\n", "class Runner"),
], ids=["method", "function", "class"])
def test_error_several_definitions(tmp_path, rel, addition, what):
    root = step_tree(tmp_path, 3)
    (root / rel).write_text((root / rel).read_text() + addition)
    msg = _error(root, RUNNER, "Runner", "bind")
    assert f": {what} is defined 2 times (lines " in msg and msg.startswith(str(root / rel) + ":")


def test_error_syntax(tmp_path):
    root = step_tree(tmp_path, 0, {RUNNER: ("def bind(self):", "def bind(self)")})
    assert _error(root, RUNNER, "Runner", "bind").startswith(f"{root / RUNNER}:16: syntax error")


def test_error_two_target_modules(tmp_path):
    root = step_tree(tmp_path, 2, {RUNNER: ("self.cpu = binding", "self.cpu = other.bind(tp_rank=1, tp_size=1) or binding")})
    (root / RUNNER).write_text("from pkg import other\n" + (root / RUNNER).read_text())
    (root / "pkg/other.py").write_text("def bind(*, tp_rank, tp_size):\n    return 0\n")
    assert "bind is called from two modules: pkg.other" in _error(root, RUNNER, "Runner", "bind")


def test_error_missing_file(tmp_path):
    assert _error(tmp_path, RUNNER, "Runner", "bind") == f"{tmp_path / RUNNER}: no such file"


# --- the kv fixtures and the codemod's output per step ---------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_kv_fixture_original(shape):
    ext = locate(TREES / shape, MR, "ModelRunner", "configure_kv_cache_dtype")
    assert (ext.shape, ext.call) == ("method", None)
    assert [s.method for s in ext.call_sites] == ["load_model"]


@pytest.mark.parametrize("step, shape", [(1, "static"), (2, "moved"), (3, "wrapper"), (4, "wrapper")])
@pytest.mark.parametrize("fixture", SHAPES)
def test_kv_fixture_codemod_steps(fixture, step, shape):
    ext = locate(TREES / fixture, MR, "ModelRunner", "configure_kv_cache_dtype",
                 overrides=expected_files(fixture, step))
    assert ext.shape == shape
    if step >= 2:
        assert (ext.alias, ext.target_rel) == ("kv_cache_dtype", "sglang/srt/mem_cache/kv_cache_dtype.py")
    keywords = ext.call.keywords
    assert keywords["model"] == "self.model" and keywords["model_dtype"] == "self.dtype"
    assert ("server_args_kv_cache_dtype" in keywords) == (step == 4)
    if step == 4:
        assert keywords["server_args_kv_cache_dtype"] == "self.server_args.kv_cache_dtype"
    result = ext.call.result
    assert result.how == "assign" and result.targets[-1] == "self.kv_cache_dtype"
    if fixture != "instance_log":
        assert result.targets[0] == "resolved_kv_cache_dtype"
        (record,) = result.follow_up
        assert _src(record.test) == "resolved_kv_cache_dtype is not None"
    if fixture == "record_dflash":
        assert keywords["is_dflash"] == "self.spec_algorithm.is_dflash()"


# --- real releases -----------------------------------------------------------------------

METHODS = ("init_threads_binding", "check_quantized_moe_compatibility", "configure_kv_cache_dtype",
           "get_pp_proxy_topk_size")


@pytest.mark.parametrize("method", METHODS)
def test_release_0_5_15_post1_has_the_original_methods(method):
    ext = locate(release_root("0.5.15.post1"), MR, "ModelRunner", method)
    assert (ext.shape, ext.method_kind, ext.function) == ("method", "instance", None)
    assert all(site.calls == "method" for site in ext.call_sites)


@pytest.mark.parametrize("method, function, target, alias, how", [
    ("init_threads_binding", None, "sglang.srt.utils.numa_utils", "numa_utils", "assign"),
    ("check_quantized_moe_compatibility", None, "sglang.srt.model_executor.model_runner_components.moe_ep_setup",
     "check_quantized_moe_compatibility", "discard"),
    ("configure_kv_cache_dtype", None, "sglang.srt.mem_cache.kv_cache_dtype", "kv_cache_dtype", "assign"),
    ("get_pp_proxy_topk_size", "resolve_pp_proxy_topk_size",
     "sglang.srt.model_executor.model_runner_components.misc_utils", "misc_utils", "return"),
])
def test_release_0_5_16_upstream_wrappers(method, function, target, alias, how):
    ext = locate(release_root("0.5.16"), MR, "ModelRunner", method, function)
    assert (ext.shape, ext.target_module, ext.alias, ext.call.result.how) == ("wrapper", target, alias, how)
    assert ext.target_rel == target.replace(".", "/") + ".py"
    assert ext.function.name == (function or method)
    assert ext.function.args.kwonlyargs and not ext.function.args.args
    assert set(ext.call.keywords) == {a.arg for a in ext.function.args.kwonlyargs}


def test_release_0_5_16_details():
    root = release_root("0.5.16")
    threads = locate(root, MR, "ModelRunner", "init_threads_binding")
    assert threads.call.keywords == {"tp_rank": "self.ps.tp_rank", "tp_size": "self.ps.tp_size"}
    assert threads.call.result.targets == ["self.local_omp_cpuid"]
    kv = locate(root, MR, "ModelRunner", "configure_kv_cache_dtype")
    assert kv.call.result.targets == ["resolved_kv_cache_dtype", "self.kv_cache_dtype"]
    assert [_src(s) for s in kv.call.preamble] == ["spec_algorithm = getattr(self, 'spec_algorithm', None)"]
    assert "_record_kv_cache_dtype" in _src(kv.call.result.follow_up[0])
    inferred = locate(root, MR, "ModelRunner", "get_pp_proxy_topk_size")
    assert (inferred.function_name, inferred.function_name_inferred) == ("resolve_pp_proxy_topk_size", True)


@pytest.mark.parametrize("tree", ["record_call_after", "record_call_after_case_bug"])
def test_kv_fixture_written_after(tree):
    ext = locate(TREES / tree, MR, "ModelRunner", "configure_kv_cache_dtype")
    assert (ext.shape, ext.target_rel, ext.call.where) == ("wrapper", "sglang/srt/mem_cache/kv_cache_dtype.py", "wrapper")


def test_kv_fixture_without_the_method():
    root = TREES / "no_method"
    with pytest.raises(LocateError, match=r"model_runner.py:\d+: ModelRunner has no method configure_kv_cache_dtype "
                                          r"and no call of an extracted configure_kv_cache_dtype\(\.\.\.\)"):
        locate(root, MR, "ModelRunner", "configure_kv_cache_dtype")
