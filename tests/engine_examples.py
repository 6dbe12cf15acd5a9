"""A small extraction written for the engine's tests: `Runner.bind` in `pkg/runner.py`, in the
four shapes the steps give it (0 original, 1 static in place, 2 moved to `pkg/binding.py`,
3 wrapper), a helper that writes such files into a folder, and `codemods.extract_method`'s
output on a real release as overrides per step."""

from __future__ import annotations

import functools
import textwrap
from pathlib import Path

RUNNER = "pkg/runner.py"
TARGET = "pkg/binding.py"

_HEAD = '''\
import logging
import os

logger = logging.getLogger(__name__)
'''
_LIMITS = '''
LIMITS = {"small": 1, "large": 4}
'''
_INIT = '''

class Runner:
    def __init__(self, tp_rank, tp_size):
        self.tp_rank = tp_rank
        self.tp_size = tp_size
        if tp_size > 0:
            {call}
'''
_METHOD_BODY = '''\
        """Pick this rank's CPU."""
        mode = os.environ.get("BIND", "all")
        if mode == "all":
            assert self.tp_size <= LIMITS["large"], "too many ranks"
            self.cpu = self.tp_rank
        else:
            self.cpu = mode.split("|")[self.tp_rank]
            logger.warning("bound %s", self.cpu)
'''
_FUNCTION_BODY = '''\
    """Pick this rank's CPU."""
    mode = os.environ.get("BIND", "all")
    if mode == "all":
        assert tp_size <= LIMITS["large"], "too many ranks"
        cpu = tp_rank
    else:
        cpu = mode.split("|")[tp_rank]
        logger.warning("bound %s", cpu)
    return cpu
'''
_CALL = "binding.bind(tp_rank=self.tp_rank, tp_size=self.tp_size)"


def _runner(call: str, methods: str = "", head: str = _HEAD + _LIMITS) -> str:
    return head + _INIT.replace("{call}", call) + methods


STEPS: dict[int, dict[str, str]] = {
    0: {RUNNER: _runner("self.bind()", "\n    def bind(self):\n" + _METHOD_BODY)},
    1: {RUNNER: _runner("self.cpu = self.bind(tp_rank=self.tp_rank, tp_size=self.tp_size)",
                        "\n    @staticmethod\n    def bind(*, tp_rank, tp_size):\n"
                        + textwrap.indent(_FUNCTION_BODY, "    "))},
    2: {RUNNER: _runner(f"self.cpu = {_CALL}", head="from pkg import binding\n"),
        TARGET: _HEAD + _LIMITS + "\n\ndef bind(*, tp_rank, tp_size):\n" + _FUNCTION_BODY},
    3: {RUNNER: _runner("self.bind()", f"\n    def bind(self):\n        self.cpu = {_CALL}\n",
                        head="from pkg import binding\n"),
        TARGET: _HEAD + _LIMITS + "\n\ndef bind(*, tp_rank, tp_size):\n" + _FUNCTION_BODY},
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write `files` (relative path -> text, dedented) under `root`, with package `__init__.py`s."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        for parent in Path(rel).parents:
            if str(parent) != "." and not (root / parent / "__init__.py").exists():
                (root / parent / "__init__.py").write_text("")
    return root


def step_tree(root: Path, step: int, edits: dict[str, tuple[str, str]] | None = None) -> Path:
    """The example at `step` under `root`; `edits` maps a file to one (old, new) replacement."""
    files = dict(STEPS[step])
    for rel, (old, new) in (edits or {}).items():
        assert old in files[rel], (rel, old)
        files[rel] = files[rel].replace(old, new, 1)
    return write_tree(root, files)


# Where `codemods.extract_method` moves the two methods on real releases, as upstream did in 0.5.16
# (the moved module globals are those upstream's moe_ep_setup binds).
EXTRACTIONS = {"init_threads_binding": ("sglang.srt.utils.numa_utils", ()),
               "check_quantized_moe_compatibility": (
                   "sglang.srt.model_executor.model_runner_components.moe_ep_setup", ("_use_aiter",))}


@functools.lru_cache(maxsize=None)
def extracted_steps(root: Path, method: str, pass_self: str | None = None) -> tuple[dict[str, str], ...]:
    """`codemods.extract_method`'s output on the tree `root` (not written): the files as they
    stand after each of steps 1-4, as overrides."""
    from codemods.extract_method import MethodSpec, refactor

    target, moved_globals = EXTRACTIONS[method]
    spec = MethodSpec("ModelRunner", method, target, pass_self=pass_self, moved_globals=moved_globals)
    plan = refactor(root, spec)
    files, out = {}, []
    for step in plan.steps:
        files.update({str(path.relative_to(plan.root)): text for path, text in step.changes.items()})
        out.append(dict(files))
    return tuple(out)
