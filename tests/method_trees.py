"""The extraction fixture of `fixtures/methods/runner` (a small sglang-shaped runner with two
methods to extract), and its two extractions, made here by moving the method's text the way a
careful maintainer would (never by our codemod, which is what they check):
- "threads": `ModelRunner.init_threads_binding` -> `init_threads_binding(*, tp_size, tp_rank)`
  appended to `sglang.srt.utils.numa_utils`, returning `local_omp_cpuid`;
- "moe": `ModelRunner.check_moe_block_size` -> a new module
  `sglang.srt.model_executor.model_runner_components.moe_ep_setup`, with the module globals it
  reads (`_is_hip`, `_use_aiter`) and its import of `envs`.
Each keeps a wrapper method in ModelRunner that calls the module."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "methods" / "runner"
RUNNER = "sglang/srt/model_executor/model_runner.py"
NUMA = "sglang/srt/utils/numa_utils.py"
MOE = "sglang/srt/model_executor/model_runner_components/moe_ep_setup.py"


def method_span(text: str, name: str) -> tuple[int, int]:
    start = text.index(f"    def {name}(self):")
    following = text.find("\n    def ", start + 1)
    return start, len(text) if following < 0 else following + 1


def as_function(text: str, name: str, params: list[str], result: str | None) -> str:
    start, end = method_span(text, name)
    body = textwrap.dedent(text[start:end]).split("\n", 1)[1]
    for param in params:
        body = re.sub(rf"\bself\.{param}\b", param, body)
    if result:
        body = body.replace(f"self.{result}", result).rstrip() + f"\n    return {result}\n"
    return f"def {name}(*, {', '.join(params)}):\n{body.rstrip()}\n"


def with_wrapper(text: str, name: str, module: str, params: list[str], result: str | None) -> str:
    start, end = method_span(text, name)
    call = f"{module}.{name}({', '.join(f'{p}=self.{p}' for p in params)})"
    line = f"self.{result} = {call}" if result else call
    return text[:start] + f"    def {name}(self):\n        {line}\n" + ("\n" if end < len(text) else "") + text[end:]


THREADS = ("init_threads_binding", ["tp_size", "tp_rank"], "local_omp_cpuid")
MOE_CHECK = ("check_moe_block_size", ["model_config", "tp_size", "moe_ep_size", "moe_dp_size"], None)
MOVED_GLOBALS = '_is_hip = is_hip()\n_use_aiter = get_bool_env_var("SGLANG_USE_AITER") and _is_hip\n'


def _extract(root: Path, name: str) -> None:
    runner = root / RUNNER
    text = runner.read_text()
    if name == "threads":
        method, params, result = THREADS
        numa = root / NUMA
        numa.write_text(numa.read_text().replace("import os\n", "import os\n\nfrom sglang.srt.utils import "
                                                 "get_cpu_ids_by_node\n") + "\n\n" + as_function(text, *THREADS))
        text = with_wrapper(text, method, "numa_utils", params, result)
        text = text.replace("get_cpu_ids_by_node, is_hip\n", "is_hip, numa_utils\n")
    else:
        method, params, result = MOE_CHECK
        target = root / MOE
        target.parent.mkdir()
        (target.parent / "__init__.py").write_text("")
        target.write_text('"""MoE expert-parallel checks, moved out of ModelRunner."""\n\n'
                          "from sglang.srt.environ import envs\nfrom sglang.srt.utils import get_bool_env_var, is_hip\n\n"
                          + MOVED_GLOBALS + "\n\n" + as_function(text, *MOE_CHECK))
        text = with_wrapper(text, method, "moe_ep_setup", params, result)
        text = text.replace("from sglang.srt.environ import envs\n",
                            "from sglang.srt.model_executor.model_runner_components import moe_ep_setup\n")
        text = text.replace("get_bool_env_var, get_cpu_ids_by_node, is_hip\n", "get_cpu_ids_by_node\n")
        text = text.replace("\n" + MOVED_GLOBALS, "")
    runner.write_text(text)


def tree(dest: Path, name: str = "original", edits: dict[str, tuple[str, str]] | None = None) -> Path:
    """The fixture at `dest`: "original", or extracted as "threads" / "moe"; then one (old, new)
    text replacement per file of `edits`."""
    shutil.copytree(FIXTURE, dest)
    if name != "original":
        _extract(dest, name)
    for rel, (old, new) in (edits or {}).items():
        path = dest / rel
        text = path.read_text()
        assert old in text, (rel, old)
        path.write_text(text.replace(old, new, 1))
    return dest
