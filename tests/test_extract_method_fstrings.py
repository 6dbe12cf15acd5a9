"""f-string self-documenting fields (`{self.device=}`) print their own text: the extraction keeps
what they print, not the text (`self.device=` stays, read from the parameter)."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from codemods.extract_method import MethodSpec, refactor
from tests.checkouts import write_tree

RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang.srt.model_executor.parts.logs"
TARGET_FILE = "sglang/srt/model_executor/parts/logs.py"
RUNNER_TEXT = '''\
import os


class ModelRunner:
    def context(self):
        return (
            f"Context: {self.device=} { self.gpu_id = } {self.tp_rank=:>3} {self.server_args.port=!s} "
            f"{os.sep=} {self.tp_rank + 1=} {dict(a={self.gpu_id}.pop())=} {{self.device=}}"
        )
'''
BASE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/model_executor/__init__.py": "",
        RUNNER: RUNNER_TEXT}
ATTRIBUTES = {"device": "cuda", "gpu_id": 3, "tp_rank": 1, "server_args": types.SimpleNamespace(port=30000)}


def expected() -> str:
    namespace: dict = {}
    exec(RUNNER_TEXT, namespace)
    runner = object.__new__(namespace["ModelRunner"])
    runner.__dict__.update(ATTRIBUTES)
    return runner.context()


def moved_function(tmp_path: Path, **spec):
    root = write_tree(tmp_path / "t", BASE)
    plan = refactor(root, MethodSpec("ModelRunner", "context", TARGET, **spec), range(1, 5))
    (text,) = [t for p, t in plan.changes.items() if p.relative_to(plan.root).as_posix() == TARGET_FILE]
    namespace: dict = {}
    exec(compile(text, TARGET_FILE, "exec"), namespace)
    return namespace["context"], text


@pytest.mark.parametrize("spec, arguments", [
    ({}, dict(ATTRIBUTES)),
    ({"pass_self": "model_runner"}, {"model_runner": types.SimpleNamespace(**ATTRIBUTES)}),
    ({"narrows": ["server_args.port"]}, {**{k: v for k, v in ATTRIBUTES.items() if k != "server_args"},
                                         "server_args_port": 30000}),
], ids=["inferred-parameters", "pass-self", "narrowed"])
def test_the_function_prints_what_the_method_printed(tmp_path, spec, arguments):
    function, text = moved_function(tmp_path, **spec)
    assert function(**arguments) == expected()
    assert "{os.sep=}" in text and "{{self.device=}}" in text  # only fields whose text changes are spelled out
    assert "self.device={" in text and " self.gpu_id = {" in text


STEP_2_RUNNER = '''\
from sglang.srt.model_executor.parts import logs


class ModelRunner:
    def run(self):
        return logs.context(server_args=self.server_args)
'''
STEP_2_TARGET = '''\
def context(*, server_args):
    return f"{server_args.port=} {server_args.port}"
'''


def test_narrowing_a_tree_where_steps_1_2_are_done_keeps_the_printed_text(tmp_path):
    root = write_tree(tmp_path / "t", {**BASE, RUNNER: STEP_2_RUNNER, TARGET_FILE: STEP_2_TARGET,
                                       "sglang/srt/model_executor/parts/__init__.py": ""})
    plan = refactor(root, MethodSpec("ModelRunner", "context", TARGET, narrows=["server_args.port"]), range(3, 5))
    (text,) = [t for p, t in plan.changes.items() if p.relative_to(plan.root).as_posix() == TARGET_FILE]
    namespace: dict = {}
    exec(compile(text, TARGET_FILE, "exec"), namespace)
    assert namespace["context"](server_args_port=30000) == "server_args.port=30000 30000"
