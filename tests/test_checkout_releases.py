"""The checkout-wide analyses on real releases (downloaded and cached): what they find for the
methods of the extraction series, and a sglang checkout made from a release whose test/ uses
the moved table being updated by the kv command."""

from __future__ import annotations

import pytest

from codemods.extract_kv_dtype.__main__ import main
from pysource.checkout import Checkout
from codemods.core.formatting import Style
from codemods.checkout.import_graph import ImportGraph
from codemods.checkout.method_usages import method_usages
from codemods.checkout.references import Move, plan_references
from tests.checkouts import FIXTURES, copy_fixture, git_init
from tests.releases import WITH_METHOD, copy_release, release_root

RUNNER = "sglang.srt.model_executor.model_runner"
NUMA = "sglang.srt.utils.numa_utils"
# method -> the file outside model_runner.py that names it, in a comment or a docstring only
MENTIONED = {"configure_kv_cache_dtype": "sglang/srt/layers/attention/aiter_backend.py",
             "init_threads_binding": "sglang/srt/platforms/cpu.py",
             "check_quantized_moe_compatibility": None}


@pytest.fixture(scope="module", params=WITH_METHOD)
def release(request):
    root = release_root(request.param)
    return Checkout.find(root, root)


@pytest.mark.parametrize("method", MENTIONED)
def test_a_mention_in_a_comment_or_docstring_is_not_a_use(release, method):
    mentions = sorted(release.relative(p) for p in release.select(lambda data: method.encode() in data))
    assert mentions == sorted(filter(None, ["sglang/srt/model_executor/model_runner.py", MENTIONED[method]]))
    assert method_usages(release, RUNNER, "ModelRunner", method) == []


def test_nothing_else_imports_the_table(release):
    runner = release.modules()[RUNNER]
    move = Move(RUNNER, {"TORCH_DTYPE_TO_KV_CACHE_STR": "sglang.srt.mem_cache.kv_cache_dtype"})
    assert plan_references(release, move, Style(), skip=[runner]) == ({}, [])


def test_import_cycles_of_the_series(release):
    graph = ImportGraph(release)
    assert graph.cycle_closed_by([(RUNNER, NUMA), (NUMA, "sglang.srt.utils")]) is None
    assert graph.cycle_closed_by([(RUNNER, NUMA), (NUMA, RUNNER)]) == [RUNNER, NUMA, RUNNER]
    state, comm = "sglang.srt.distributed.parallel_state", "sglang.srt.distributed.communication_op"
    assert graph.path(state, comm) and graph.path(comm, state) and comm not in graph.edges(state)
    assert graph.cycle_closed_by([(state, comm)]) is None  # sglang's own cycle: not the extraction's


def test_the_search_never_misses_a_module_level_import(release):
    """The regular expression over-approximates `ast` on every module the search reaches."""
    graph = ImportGraph(release)
    graph.cycle_closed_by([(RUNNER, NUMA)])
    assert len(graph._rough) > 100
    for module in graph._rough:
        assert graph.edges(module) <= graph._read_rough(module), module


def test_a_checkout_made_from_a_release_gets_its_tests_updated(tmp_path, capsys):
    root = tmp_path / "sglang"
    copy_release("0.5.15.post1", root / "python")
    copy_fixture("kv_table_users/before", root)
    git_init(root)
    assert main([str(root)]) == 0
    for rel in ("test/srt/test_kv.py", "benchmark/kv/bench_kv_strings.py", "scripts/check_kv_table.py"):
        assert (root / rel).read_text() == (FIXTURES / "kv_table_users/after" / rel).read_text()
    assert "TORCH_DTYPE_TO_KV_CACHE_STR = {" in (root / "python/sglang/srt/mem_cache/kv_cache_dtype.py").read_text()


# 0.5.15.post1: the series' methods used outside ModelRunner, in files that may not import it
SERIES_USES = {
    "get_pp_proxy_topk_size": [("sglang/srt/managers/scheduler_pp_mixin.py", 655),
                               ("sglang/srt/model_executor/runner/base_runner.py", 301),
                               ("sglang/srt/model_executor/runner/decode_cuda_graph_runner.py", 333)],
    "_get_attention_backend": [("sglang/srt/model_executor/model_runner.py", 2504),
                               ("sglang/srt/speculative/eagle_worker_v2.py", 1394)],
    "init_prefill_cuda_graph": [("sglang/srt/speculative/eagle_worker_v2.py", 254)],
    "apply_torch_tp": [],
}


@pytest.mark.parametrize("method", SERIES_USES)
def test_every_use_of_the_series_methods_is_found(method):
    root = release_root("0.5.15.post1")
    release = Checkout.find(root, root)
    found = method_usages(release, RUNNER, "ModelRunner", method)
    assert [(release.relative(u.path), u.line) for u in found] == SERIES_USES[method]
