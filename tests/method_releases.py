"""The series' two extractions on a real release, for the tests and the benchmark:
`ModelRunner.init_threads_binding` -> `sglang.srt.utils.numa_utils` ("threads") and
`ModelRunner.check_quantized_moe_compatibility` ->
`sglang.srt.model_executor.model_runner_components.moe_ep_setup` ("moe", with the module globals
it reads). Made by `codemods.extract_method` (engineer A's codemod) when it is importable,
else by moving the method's text (tests/method_trees.py's helpers): nothing of sglang is
committed, the trees are made at test time from the release cache, in hard-linked copies
(a changed file is replaced, never written through a link)."""

from __future__ import annotations

from pathlib import Path

from equivalence.versions.codemod_steps import link_copy
from tests.method_trees import as_function, with_wrapper

RUNNER = "sglang/srt/model_executor/model_runner.py"
CLASS = "ModelRunner"
EXTRACTIONS = {
    # name: (method, target module, parameters, result, module globals the function reads)
    "threads": ("init_threads_binding", "sglang.srt.utils.numa_utils", ["tp_size", "tp_rank"], "local_omp_cpuid", ()),
    "moe": ("check_quantized_moe_compatibility", "sglang.srt.model_executor.model_runner_components.moe_ep_setup",
            ["model_config", "tp_size", "moe_ep_size", "moe_dp_size"], None, ("_use_aiter",)),
}


def _write(path: Path, text: str) -> None:
    path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _by_hand(dest: Path, name: str) -> None:
    method, module, params, result, _ = EXTRACTIONS[name]
    runner = dest / RUNNER
    text = runner.read_text()
    target = dest / (module.replace(".", "/") + ".py")
    function = as_function(text, method, params, result)
    package, _, alias = module.rpartition(".")
    text = with_wrapper(text, method, alias, params, result)
    text = text.replace("\nfrom sglang.", f"\nfrom {package} import {alias}\nfrom sglang.", 1)
    if name == "threads":
        head = target.read_text().replace("\nfrom sglang.", "\nfrom sglang.srt.utils import get_cpu_ids_by_node\n"
                                                             "from sglang.", 1)
        _write(target, head + "\n\n" + function)
    else:
        _write(target.parent / "__init__.py", "")
        _write(target, "from sglang.srt.environ import envs\nfrom sglang.srt.utils import get_bool_env_var, is_hip\n\n"
               "_is_hip = is_hip()\n_use_aiter = get_bool_env_var(\"SGLANG_USE_AITER\") and _is_hip\n\n\n" + function)
    _write(runner, text)


def extracted(root: Path, dest: Path, name: str) -> Path:
    """A copy of the release at `root` with extraction `name` applied, at `dest`."""
    link_copy(root, dest)
    try:
        from codemods.extract_method import MethodSpec, refactor
    except ImportError:
        _by_hand(dest, name)
        return dest
    method, module, _, _, moved = EXTRACTIONS[name]
    plan = refactor(dest, MethodSpec(CLASS, method, module, moved_globals=moved))
    for path, text in plan.changes.items():
        _write(Path(path), text)
    return dest
