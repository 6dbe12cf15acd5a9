"""A method that takes nothing but `self` and never uses it (0.5.23's
`ModelRunner.maybe_enable_batch_invariant_mode`): step 1 makes it a static method without
parameters (it crashed building `def f(*)`), the function takes none, the wrapper calls it bare."""

from __future__ import annotations

import ast

from codemods.extract_method import MethodSpec, refactor, write_plan
from tests.method_expected import pass_self_tree_with

METHOD = ('    def maybe_enable_batch_invariant_mode(self):\n'
          '        if DETERMINISTIC:\n'
          '            print("batch invariant")\n\n')


def test_a_method_without_parameters_becomes_a_function_without_parameters(tmp_path):
    root = tmp_path / "t"
    runner = pass_self_tree_with(root, METHOD)
    text = runner.read_text().replace(
        "        self.server_args = server_args\n",
        "        self.server_args = server_args\n        self.maybe_enable_batch_invariant_mode()\n", 1)
    runner.write_text(text.replace("\n\nclass ModelRunner:", "\nDETERMINISTIC = False\n\n\nclass ModelRunner:", 1))
    wanted = MethodSpec("ModelRunner", "maybe_enable_batch_invariant_mode", "sglang.srt.batch_invariant")
    for step in (1, 2, 3, 4):
        write_plan(refactor(root, wanted, range(step, step + 1)))
        compile(runner.read_text(), str(runner), "exec")
    fn = next(s for s in ast.parse((root / "sglang/srt/batch_invariant.py").read_text()).body
              if isinstance(s, ast.FunctionDef))
    assert fn.name == "maybe_enable_batch_invariant_mode" and not fn.args.args and not fn.args.kwonlyargs
    owner = next(s for s in ast.parse(runner.read_text()).body if isinstance(s, ast.ClassDef))
    wrapper = next(s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == fn.name)
    assert ast.unparse(wrapper.body[-1]) == "batch_invariant.maybe_enable_batch_invariant_mode()"
    assert "self.maybe_enable_batch_invariant_mode()" in ast.unparse(owner.body[1])  # the call in __init__ stays


def test_pass_self_on_a_method_that_never_uses_self_says_so(tmp_path):
    """`--pass-self` is what the user asked for, so the function takes the instance; the shape
    line says the method never used it (0.5.18 `_generate_prefill_cuda_graph_batch_sizes`, which
    upstream made `(max_bs)`)."""
    root = tmp_path / "t"
    runner = pass_self_tree_with(root, METHOD)
    runner.write_text(runner.read_text().replace("\n\nclass ModelRunner:", "\nDETERMINISTIC = False\n\n\nclass ModelRunner:", 1))
    wanted = MethodSpec("ModelRunner", "maybe_enable_batch_invariant_mode", "sglang.srt.batch_invariant",
                        pass_self="model_runner")
    plan = refactor(root, wanted)
    assert any("the method never uses self: without --pass-self the function does not take it" in line
               for line in plan.messages), plan.messages
