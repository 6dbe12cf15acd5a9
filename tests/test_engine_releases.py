"""`--method` on real releases: the series' two extractions (`init_threads_binding` ->
`sglang.srt.utils.numa_utils`, `check_quantized_moe_compatibility` -> `moe_ep_setup`) made by
`codemods.extract_method` (tests/method_releases.py) are equivalent with full branch coverage on
0.5.14 and 0.5.15.post1; on 0.5.15.post1 the generic mutants are caught and `--steps --method`
proves every step; and the codemod's extraction of `init_shared_mooncake_transfer_engine`, which
calls a function of the module it moves to, is equivalent there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from equivalence.cli import main
from equivalence.versions.codemod_steps import link_copy
from tests.method_releases import EXTRACTIONS, extracted
from tests.releases import release_root

CASES = [(v, n) for v in ("0.5.14", "0.5.15.post1") for n in EXTRACTIONS]


def method(name: str) -> str:
    return f"ModelRunner.{EXTRACTIONS[name][0]}"


@pytest.fixture(scope="module", params=CASES, ids=[f"{v}-{n}" for v, n in CASES])
def proof(request, tmp_path_factory):
    version, name = request.param
    tmp = tmp_path_factory.mktemp(f"{version}-{name}")
    after = extracted(release_root(version), tmp / "after", name)
    extra = ["--mutants"] if version == "0.5.15.post1" else []
    out = tmp / "r.json"
    code = main(["--method", method(name), str(release_root(version)), str(after), "--json", str(out), *extra])
    return name, code, json.loads(out.read_text())


def test_equivalent_with_full_coverage_of_both_versions(proof):
    name, code, report = proof
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert pair["divergences"] == [] and pair["not_modelled"] == []
    assert pair["shapes"] == {"before": "method", "after": "wrapper"}
    for side, unit in (("before", "method"), ("after", "function")):
        cov = pair["coverage"][side]
        assert cov["hit"] == cov["branches"] >= 10, cov["missed"]
        assert unit in {u["unit"] for u in cov["units"]}
    assert {c["kind"] for c in pair["classified"]} <= {"deferred-writes"}
    assert pair["static"]["residuals"] == [] and not pair["static"]["divergent"]


def test_what_was_varied_comes_from_the_code(proof):
    name, _, report = proof
    inputs = report["pairs"][0]["inputs"]
    if name == "threads":
        assert {"all", "a|b", "<absent>"} <= set(inputs["env:SGLANG_CPU_OMP_THREADS_BIND"])
        assert "<list of 2>" in inputs["sglang.srt.utils.common.get_cpu_ids_by_node()"]
    else:
        assert "<absent>" in inputs["self.model_config.hf_config.quantization_config"]
        assert {False, True} <= set(inputs["sglang.srt.environ.envs.SGLANG_SHARED_EXPERT_TP1.get()"])


def test_mutants_are_caught(proof):
    _, _, report = proof
    if "mutants" not in report:
        pytest.skip("mutants run on 0.5.15.post1 only")
    m = report["mutants"]
    assert m["total"] >= 10 and m["killed"] >= 0.9 * m["total"], m["survivors"]


@pytest.mark.parametrize("name", list(EXTRACTIONS))
def test_steps_with_the_codemod(tmp_path, name):
    out = tmp_path / "r.json"
    code = main(["--steps", str(release_root("0.5.15.post1")), "--method", method(name),
                 "--to", EXTRACTIONS[name][1], "--json", str(out)])
    pairs = json.loads(out.read_text())["pairs"]
    assert code == 0 and [p["verdict"] for p in pairs] == ["equivalent"] * 5
    assert [p["after"] for p in pairs][-1] == "codemod output (steps 1-4 in one run)"
    assert all(c["missed"] == [] for p in pairs for c in p["coverage"].values())


@pytest.mark.parametrize("wrapper_edit", [None, ("device=self.device", "device=self.server_args.device")],
                         ids=["extracted", "device-from-the-wrong-attribute"])
def test_apply_torch_tp_into_model_parallel_which_imports_torch_distributed(tmp_path, wrapper_edit):
    """The target module imports torch's distributed submodules (upstream 0.5.16 made this
    extraction): it loads, and what the code asks torch.distributed is observed with its
    arguments, so a wrapper passing the wrong attribute is divergent."""
    from codemods.extract_method import MethodSpec, refactor

    root = release_root("0.5.15.post1")
    after = tmp_path / "after"
    link_copy(root, after)
    plan = refactor(after, MethodSpec("ModelRunner", "apply_torch_tp", "sglang.srt.layers.model_parallel"))
    for path, text in plan.changes.items():
        if wrapper_edit and str(path).endswith("model_runner.py"):
            assert wrapper_edit[0] in text
            text = text.replace(*wrapper_edit)
        Path(path).unlink(missing_ok=True)
        Path(path).write_text(text)
    out = tmp_path / "r.json"
    code = main(["--method", "ModelRunner.apply_torch_tp", str(root), str(after), "--json", str(out)])
    (pair,) = json.loads(out.read_text())["pairs"]
    if wrapper_edit is None:
        assert (code, pair["verdict"]) == (0, "equivalent") and pair["not_modelled"] == []
        assert pair["static"]["residuals"] == [] and not pair["static"]["divergent"]
        assert {"torch.distributed.init_device_mesh", "sglang.srt.layers.model_parallel.tensor_parallel"} <= set(
            pair["inputs"])
    else:
        assert (code, pair["verdict"]) == (1, "divergent")
        shown = [d for d in pair["divergences"] if "example" in d][0]
        def meshes(events: list) -> list:  # the devices meshes are asked on (of tp_size: an int ModelRunner declares)
            return [e[2][0] for e in events if e[:2] == ["call", "torch.distributed.init_device_mesh"]
                    and len(e[2][1]) == 1]

        # after: the world's value of server_args.device, a field ServerArgs declares (None by default)
        assert meshes(shown["before"]["events"]) == ["<self.device>"]
        assert len(meshes(shown["after"]["events"])) == 1 and meshes(shown["after"]["events"]) != ["<self.device>"]


MOONCAKE = "ModelRunner.init_shared_mooncake_transfer_engine"
MOONCAKE_TARGET = "sglang.srt.distributed.device_communicators.mooncake_transfer_engine"


def test_a_name_the_target_defines_is_one_input_in_both_versions(tmp_path):
    """The method imports `init_mooncake_transfer_engine` in its body from the module it moves to;
    moved, the function calls that module's own global: one stand-in keyed by origin."""
    from codemods.extract_method import MethodSpec, refactor

    root = release_root("0.5.15.post1")
    after = tmp_path / "after"
    link_copy(root, after)
    plan = refactor(after, MethodSpec("ModelRunner", MOONCAKE.partition(".")[2], MOONCAKE_TARGET,
                                      function_name="maybe_init_shared_mooncake_transfer_engine"))
    for path, text in plan.changes.items():
        Path(path).unlink()
        Path(path).write_text(text)
    moved = (after / (MOONCAKE_TARGET.replace(".", "/") + ".py")).read_text()
    assert "def maybe_init_shared_mooncake_transfer_engine(" in moved and "\n    from sglang." not in moved
    out = tmp_path / "r.json"
    code = main(["--method", MOONCAKE, str(root), str(after), "--json", str(out), "--mutants"])
    report = json.loads(out.read_text())
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert pair["divergences"] == [] and pair["not_modelled"] == []
    assert all(c["hit"] == c["branches"] >= 20 for c in pair["coverage"].values())
    assert pair["inputs"][f"{MOONCAKE_TARGET}.init_mooncake_transfer_engine"] == ["<stand-in>"]
    static = pair["static"]
    assert static["residuals"] == [] and not static["divergent"]
    assert {c["name"]: c["equal"] for c in static["constants"]}["init_mooncake_transfer_engine"]
    m = report["mutants"]
    assert m["total"] >= 10 and m["killed"] >= 0.9 * m["total"], m["survivors"]
