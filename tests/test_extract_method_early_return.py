"""An early bare `return` in a method whose result is an attribute it writes (0.5.23's
`ModelRunner.init_token_oracle`): the function returns the result there too, `return flag`
(LibCST refused to print the `return` it had made, without the space before the value)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from codemods.extract_method import MethodSpec, refactor, write_plan
from pysource.extraction import locate
from tests.method_expected import RUNNER, pass_self_tree_with

REPO = Path(__file__).resolve().parent.parent

METHOD = ('    def init_flag(self):\n'
          '        if self.server_args is None:\n'
          '            self.flag = None\n'
          '            return\n'
          '        self.flag = len(str(self.server_args))\n\n')


def test_an_early_return_returns_the_result(tmp_path):
    root = tmp_path / "t"
    runner = pass_self_tree_with(root, METHOD)
    write_plan(refactor(root, MethodSpec("ModelRunner", "init_flag", "sglang.srt.flags")))
    fn = next(s for s in ast.parse((root / "sglang/srt/flags.py").read_text()).body if isinstance(s, ast.FunctionDef))
    returns = [ast.unparse(n) for n in ast.walk(fn) if isinstance(n, ast.Return)]
    assert returns == ["return flag", "return flag"]
    owner = next(s for s in ast.parse(runner.read_text()).body if isinstance(s, ast.ClassDef))
    wrapper = next(s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == "init_flag")
    assert ast.unparse(wrapper.body[-1]) == "self.flag = flags.init_flag(server_args=self.server_args)"


def test_the_proof_maps_the_early_return_back(tmp_path):
    before = tmp_path / "before"
    pass_self_tree_with(before, METHOD)
    after = tmp_path / "after"
    shutil.copytree(before, after)
    write_plan(refactor(after, MethodSpec("ModelRunner", "init_flag", "sglang.srt.flags")))
    done = subprocess.run([sys.executable, "-m", "equivalence", "--method", "ModelRunner.init_flag", str(before),
                           str(after)], capture_output=True, text=True, cwd=REPO)
    assert "verdict: equivalent" in done.stdout, done.stdout + done.stderr
    assert "0 residual difference(s)" in done.stdout  # `return flag` early is the old bare `return`


def test_a_method_with_logic_of_its_own_is_no_wrapper_of_the_function_it_calls(tmp_path):
    root = tmp_path / "t"
    runner = pass_self_tree_with(root, METHOD.replace("len(str(self.server_args))", "install(size=3)"))
    (root / "sglang/srt/installers.py").write_text("def install(*, size):\n    return size\n")
    runner.write_text("from sglang.srt.installers import install\n" + runner.read_text())
    ext = locate(root, RUNNER, "ModelRunner", "init_flag")
    assert (ext.shape, ext.function_name_inferred) == ("method", False)  # not a wrapper of `install`
