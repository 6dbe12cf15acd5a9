"""Both codemods' command lines today versus at a pinned baseline commit, on real releases.

The layout of the codemods changed (issues 15 and 32) without changing what they do: every `--dry-run`
below must print the same diff on stdout, the same lines on stderr and exit with the same code
as at the baseline. The baseline's packages are taken from git (`git archive BASELINE`) into a
temporary folder and run with that folder first on PYTHONPATH; the current code runs from this
checkout. Paths in the output are those of the release's cache folder on both sides.

    python -m tests.dry_run_baseline [--baseline REV] [--show] [VERSION ...]   # default: 0.5.14 and 0.5.15.post1

prints one line per run, identical or DIFFERENT (exit 1 if any differs); `--show` adds, for each
different run, the lines that differ (a unified diff of stdout and stderr, the first 30 lines).
`--baseline REV` compares with another commit (default: BASELINE below).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# main before the kind interface of issue 32 (04a79a3 and after). The layout of issue 15 was
# checked against a4ddfa6; messages changed on purpose between the two (the sessions' new wording).
BASELINE = "8573860"
RELEASES = ("0.5.14", "0.5.15.post1")
MOVE = "sglang.srt.model_executor.model_runner_components"
RUNS = {
    "kv": ("codemods.extract_kv_dtype", []),
    "kv 1-2": ("codemods.extract_kv_dtype", ["--steps", "1-2"]),
    "threads": ("codemods.extract_method", ["ModelRunner.init_threads_binding", "sglang.srt.utils.numa_utils"]),
    "threads 1-2": ("codemods.extract_method", ["ModelRunner.init_threads_binding", "sglang.srt.utils.numa_utils",
                                                "--steps", "1-2"]),
    "threads no-format": ("codemods.extract_method", ["ModelRunner.init_threads_binding",
                                                      "sglang.srt.utils.numa_utils", "--no-format"]),
    "moe": ("codemods.extract_method", ["ModelRunner.check_quantized_moe_compatibility", f"{MOVE}.moe_ep_setup"]),
    "torch tp": ("codemods.extract_method", ["ModelRunner.apply_torch_tp", "sglang.srt.layers.model_parallel"]),
    "mooncake": ("codemods.extract_method", [
        "ModelRunner.init_shared_mooncake_transfer_engine",
        "sglang.srt.distributed.device_communicators.mooncake_transfer_engine",
        "--name", "maybe_init_shared_mooncake_transfer_engine"]),
    "experts": ("codemods.extract_method", ["ModelRunner.init_routed_experts_capturer",
                                            "sglang.srt.state_capturer.routed_experts"]),
    "indexer": ("codemods.extract_method", ["ModelRunner.init_indexer_capturer",
                                            "sglang.srt.state_capturer.indexer_topk"]),
    "msprobe (refused)": ("codemods.extract_method", ["ModelRunner.init_msprobe", f"{MOVE}.misc_utils"]),
    "msprobe pass-self": ("codemods.extract_method", ["ModelRunner.init_msprobe", f"{MOVE}.misc_utils",
                                                      "--pass-self", "model_runner"]),
    "decode graph": ("codemods.extract_method", ["ModelRunner.init_decode_cuda_graph", f"{MOVE}.cuda_graph_setup",
                                                 "--pass-self", "model_runner", "--name", "capture_decode_graph"]),
    "torch distributed": ("codemods.extract_method", ["ModelRunner.init_torch_distributed",
                                                      "sglang.srt.distributed.bootstrap", "--pass-self",
                                                      "model_runner"]),
    "pp proxy (refused)": ("codemods.extract_method", ["ModelRunner.get_pp_proxy_topk_size", f"{MOVE}.misc_utils"]),
    "prefill graph (refused)": ("codemods.extract_method", ["ModelRunner.init_prefill_cuda_graph",
                                                            f"{MOVE}.cuda_graph_setup", "--pass-self",
                                                            "model_runner"]),
    "lora (refused)": ("codemods.extract_method", ["ModelRunner.load_lora_adapter", "sglang.srt.lora.lora_manager"]),
}


def baseline_packages(dest: Path, baseline: str = BASELINE) -> Path:
    """Unpack the baseline commit's packages under `dest`; returns `dest`."""
    names = subprocess.run(["git", "-C", str(REPO), "ls-tree", "--name-only", baseline], check=True,
                           capture_output=True, text=True).stdout.split()
    packages = [n for n in ("pysource", "codemods") if n in names]
    archive = subprocess.run(["git", "-C", str(REPO), "archive", baseline, *packages], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def run(pythonpath: Path, root: Path, module: str, args: list[str]) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    res = subprocess.run([sys.executable, "-m", module, str(root), *args, "--dry-run"], cwd=pythonpath, env=env,
                         capture_output=True, text=True)
    return res.returncode, res.stdout, res.stderr


def _shown(before: tuple[int, str, str], after: tuple[int, str, str]) -> str:
    import difflib

    lines = []
    for name, b, a in (("stdout", before[1], after[1]), ("stderr", before[2], after[2])):
        lines += difflib.unified_diff(b.splitlines(), a.splitlines(), f"baseline {name}", f"now {name}", n=0,
                                      lineterm="")
    return "\n".join("    " + line[:160] for line in lines[:30])


def main(argv: list[str]) -> int:
    from tests.releases import release_root

    show = "--show" in argv
    argv = [a for a in argv if a != "--show"]
    baseline = BASELINE
    if "--baseline" in argv:
        at = argv.index("--baseline")
        baseline = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    versions = argv or list(RELEASES)

    differs = 0
    with tempfile.TemporaryDirectory() as tmp:
        packages = baseline_packages(Path(tmp), baseline)
        for version in versions:
            root = release_root(version)
            for name, (module, args) in RUNS.items():
                before, after = run(packages, root, module, args), run(REPO, root, module, args)
                same = before == after
                differs += not same
                print(f"{version:14} {name:24} exit {before[0]}  {'identical' if same else 'DIFFERENT'}")
                if show and not same:
                    print(_shown(before, after))
    total = len(versions) * len(RUNS)
    print(f"{len(versions)} releases x {len(RUNS)} runs: {total - differs} identical, {differs} different")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
