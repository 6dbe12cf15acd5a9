"""A nested function's `return`s and `yield`s are its own (0.5.18's
`ServerArgs._handle_modelscope_paths`, whose inner `_resolve_or_download` returns paths): the
method itself returns nothing: with `--pass-self` the function gets `-> None` and the wrapper
calls it without `return`; with inferred parameters its results are the attributes it writes."""

from __future__ import annotations

import ast
from dataclasses import replace

from codemods.extract_method import MethodSpec, refactor, write_plan
from tests.method_expected import pass_self_tree_with

METHOD = ('    def resolve_paths(self):\n'
          '        def _resolve(path):\n'
          '            if path is None:\n'
          '                return None\n'
          '            return path + "/resolved"\n\n'
          '        def _walk(paths):\n'
          '            yield from paths\n\n'
          '        self.model_path = _resolve(self.model_path)\n'
          '        self.others = list(_walk([self.model_path]))\n'
          '        self.key = (lambda p: p)(self.model_path)\n\n')

SPEC = MethodSpec("ModelRunner", "resolve_paths", "sglang.srt.model_paths")


def _function(root) -> ast.FunctionDef:
    return next(s for s in ast.parse((root / "sglang/srt/model_paths.py").read_text()).body
                if isinstance(s, ast.FunctionDef) and s.name == "resolve_paths")


def test_with_pass_self_the_function_returns_none(tmp_path):
    root = tmp_path / "t"
    pass_self_tree_with(root, METHOD)
    plan = refactor(root, replace(SPEC, pass_self="model_runner"))
    assert "returns a value" not in " ".join(plan.messages)
    write_plan(plan)
    assert ast.unparse(_function(root).returns) == "None"


def test_with_inferred_parameters_the_writes_are_the_results(tmp_path):
    root = tmp_path / "t"
    runner = pass_self_tree_with(root, METHOD)
    plan = refactor(root, SPEC)
    assert "results: self.model_path, self.others, self.key" in " ".join(plan.messages)
    write_plan(plan)
    assert ast.unparse(_function(root).body[-1]) == "return (model_path, others, key)"
    owner = next(s for s in ast.parse(runner.read_text()).body if isinstance(s, ast.ClassDef))
    wrapper = next(s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == "resolve_paths")
    assert not any(isinstance(n, ast.Return) for n in ast.walk(wrapper)), ast.unparse(wrapper)
