"""How long the checkout-wide analyses take on a real release, relative to one LibCST round trip.

    python benchmarks/checkout_scan_speed.py [VERSION]

On the unpacked release (2,572 files, 36 MB for 0.5.15.post1), with a fresh `Checkout` each
time (files listed and read again; the OS cache is warm after the first run), prints:
- the scan an extraction of `configure_kv_cache_dtype` runs in step 2 (references to the moved
  table, patches of the names the function reads) plus `method_usages` of the method;
- `method_usages` of `init_threads_binding` and `check_quantized_moe_compatibility`;
- the import-cycle check of the edges an extraction of `init_threads_binding` to
  `sglang.srt.utils.numa_utils` adds (runner -> numa_utils, numa_utils -> sglang.srt.utils);
- `libcst.parse_module(src).code` on the release's model_runner.py, and each ratio to it
  (targets: the scan well under 0.2 s, the cycle check well under 0.3 s; the whole extraction
  within 4x the round trip). Each figure is the best of a few runs in this one process.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import libcst  # noqa: E402

from pysource.checkout import Checkout  # noqa: E402
from codemods.core.formatting import Style  # noqa: E402
from codemods.checkout.import_graph import ImportGraph  # noqa: E402
from codemods.checkout.method_usages import method_usages  # noqa: E402
from codemods.checkout.patched_reads import patches_missing_moved_code  # noqa: E402
from codemods.checkout.references import Move, plan_references  # noqa: E402
from tests.releases import release_root  # noqa: E402

OLD = "sglang.srt.model_executor.model_runner"
KV = "sglang.srt.mem_cache.kv_cache_dtype"
NUMA = "sglang.srt.utils.numa_utils"
KV_READS = {"torch", "fp8_dtype", "_is_hip", "logger", "log_info_on_rank0", "Optional", "nn", "is_hip", "logging"}


def best(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def kv_scan(root: Path) -> None:
    checkout = Checkout.find(root, root)
    skip = [root / "sglang/srt/model_executor/model_runner.py"]
    plan_references(checkout, Move(OLD, {"TORCH_DTYPE_TO_KV_CACHE_STR": KV}), Style(), skip)
    patches_missing_moved_code(checkout, OLD, KV, "configure_kv_cache_dtype", KV_READS, {"_is_hip", "logger"}, skip)
    method_usages(checkout, OLD, "ModelRunner", "configure_kv_cache_dtype")


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.15.post1"
    root = release_root(version)
    src = (root / "sglang/srt/model_executor/model_runner.py").read_text()
    kv_scan(root)  # warm-up: imports, OS cache
    checkout = Checkout.find(root, root)
    figures = {
        "list the files": best(lambda: Checkout.find(root, root).files()),
        "kv scan (references, patches, usages)": best(lambda: kv_scan(root)),
        "usages of init_threads_binding": best(lambda: method_usages(
            Checkout.find(root, root), OLD, "ModelRunner", "init_threads_binding")),
        "usages of check_quantized_moe_compatibility": best(lambda: method_usages(
            Checkout.find(root, root), OLD, "ModelRunner", "check_quantized_moe_compatibility")),
        "cycle check runner -> numa_utils -> utils": best(lambda: ImportGraph(checkout).cycle_closed_by(
            [(OLD, NUMA), (NUMA, "sglang.srt.utils")])),
    }
    plain = best(lambda: libcst.parse_module(src).code, repeat=3)
    files = len(checkout.files())
    print(f"sglang {version}: {files} Python files, model_runner.py {src.count(chr(10))} lines")
    for what, seconds in figures.items():
        print(f"{what:46} {seconds:.3f} s  {seconds / plain:.2f}x")
    print(f"{'libcst.parse_module(src).code':46} {plain:.3f} s  1.00x")


if __name__ == "__main__":
    main()
