"""`--write-back ATTR[=FLAG]` on our fixture `method_write_back` (the shape of 0.5.15.post1
`ModelRunner.maybe_recover_ep_ranks`, its `self.forward_pass_id = 0` moved last on its path, as
upstream's 0.5.16 has it): the function returns whether it wrote, the callers write."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from codemods.core.errors import BadInput, Refusal
from codemods.extract_method import AlreadyApplied, MethodSpec, refactor, write_plan

REPO = Path(__file__).resolve().parent.parent
TREE = REPO / "fixtures" / "trees" / "method_write_back"
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/elastic/recovery.py"
ONE = MethodSpec(class_name="ModelRunner", method_name="maybe_recover", target_module="sglang.srt.elastic.recovery",
                 write_back="forward_pass_id")
GROUP = replace(ONE, methods=("maybe_recover", "_healthy_src_rank"), names={"_healthy_src_rank": "healthy_src_rank"},
                write_back="forward_pass_id=recovered")

BEHAVIOUR = """
import itertools, json, logging
from sglang.srt.elastic.recovery import RecoveryState
from sglang.srt.model_executor.model_runner import ModelRunner
logged = []
logging.basicConfig(level=logging.INFO)
logging.getLogger().addHandler(type("H", (logging.Handler,), {"emit": lambda s, r: logged.append(r.getMessage())})())
out = []
for active, flags in itertools.product(([1, 1, 1], [1, 0, 1], [0, 0, 1], [0, 0, 0]), ([0, 0, 0], [1, 1, 1])):
    RecoveryState.broadcasts = []
    r = ModelRunner(active, flags, seed=len(out))
    out.append([[r.forward() for _ in range(3)], r.forward_pass_id, r.passes, RecoveryState.broadcasts])
print(json.dumps([out, logged]))
"""

FUNCTION = '''
def maybe_recover(*, active, rejoin_flags, seed: int) -> bool:
    if all(active):
        return False
    down = [i for i, up in enumerate(active) if not up]
    if down and try_recover(down):
        src = healthy_src_rank(rejoining=False, rejoin_flags=rejoin_flags)
        RecoveryState.broadcasts.append((seed, src))
        logger.info(f"recovered ranks {down} from rank {src}")
        return True

    return False
'''

WRAPPER = '''
    def maybe_recover(self):
        recovered = recovery.maybe_recover(
            active=self.active, rejoin_flags=self.rejoin_flags, seed=self.seed
        )
        if recovered:
            self.forward_pass_id = 0
'''

CALL_SITE = '''
        self.passes += 1
        recovered = recovery.maybe_recover(
            active=self.active, rejoin_flags=self.rejoin_flags, seed=self.seed
        )
        if recovered:
            self.forward_pass_id = 0
        return self.forward_pass_id
'''


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    shutil.copytree(TREE, root)
    return root


def _alone(tmp_path: Path) -> Path:
    """The tree with `maybe_recover` calling no other method (so it moves alone)."""
    root = _tree(tmp_path)
    _edit(root, "src = self._healthy_src_rank(rejoining=False)", "src = 0")
    return root


def _behaviour(root: Path) -> list:
    done = subprocess.run([sys.executable, "-c", BEHAVIOUR], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _edit(root: Path, old: str, new: str) -> str:
    text = (root / RUNNER).read_text()
    assert text.count(old) == 1, old
    (root / RUNNER).write_text(text.replace(old, new))
    return text.replace(old, new)


def test_the_group_comes_out_as_upstream_with_a_wrapper_and_behaviour_is_kept(tmp_path):
    root = _tree(tmp_path)
    before = _behaviour(root)
    plan = refactor(root, GROUP)
    write_plan(plan)
    assert FUNCTION in (root / TARGET).read_text()
    assert WRAPPER in (root / RUNNER).read_text()
    assert "        self.maybe_recover()\n" in (root / RUNNER).read_text()  # the caller's text is back
    assert any("returns whether it wrote self.forward_pass_id = 0 (--write-back)" in m for m in plan.messages)
    assert _behaviour(root) == before
    texts = {p: (root / p).read_text() for p in (RUNNER, TARGET)}
    with pytest.raises(AlreadyApplied, match="every method is already extracted") as exc:
        refactor(root, GROUP)
    assert exc.value.exit_code == 5
    assert {p: (root / p).read_text() for p in (RUNNER, TARGET)} == texts


def test_without_a_wrapper_the_caller_writes(tmp_path):
    root = _tree(tmp_path)
    before = _behaviour(root)
    write_plan(refactor(root, replace(GROUP, no_wrapper=True)))
    runner = (root / RUNNER).read_text()
    assert "def maybe_recover" not in runner and CALL_SITE in runner
    assert FUNCTION in (root / TARGET).read_text()
    assert _behaviour(root) == before
    with pytest.raises(AlreadyApplied):
        refactor(root, replace(GROUP, no_wrapper=True))
    assert (root / RUNNER).read_text() == runner


def test_one_method_without_a_flag_name_and_step_one_alone(tmp_path):
    root = _alone(tmp_path)
    before = _behaviour(root)
    plan = refactor(root, replace(ONE, pass_self=None), steps=range(1, 2))
    step1 = plan.changes[root / RUNNER]
    assert "        if self.maybe_recover(active=self.active, seed=self.seed):\n            self.forward_pass_id = 0\n" \
        in step1 and "    @staticmethod\n    def maybe_recover(*, active, seed: int) -> bool:\n" in step1
    write_plan(plan)
    assert _behaviour(root) == before
    root2 = _alone(tmp_path / "b")
    write_plan(refactor(root2, ONE))
    assert "    def maybe_recover(self):\n        if recovery.maybe_recover(active=self.active, seed=self.seed):\n" \
        "            self.forward_pass_id = 0\n" in (root2 / RUNNER).read_text()
    assert _behaviour(root2) == before


def test_a_run_from_step_3_is_refused(tmp_path):
    root = _alone(tmp_path)
    write_plan(refactor(root, ONE, steps=range(1, 3)))
    with pytest.raises(Refusal, match="--write-back forward_pass_id: the wrapper is put back in the run that does "
                                      "step 1") as exc:
        refactor(root, ONE, steps=range(3, 5))
    assert "recovery.maybe_recover(" in (root / RUNNER).read_text().splitlines()[exc.value.line - 1]


def _refused(root: Path, spec: MethodSpec, why: str) -> str:
    with pytest.raises(Refusal, match=why) as exc:
        refactor(root, spec)
    assert exc.value.path == root / RUNNER and exc.value.exit_code == 3
    return (root / RUNNER).read_text().splitlines()[exc.value.line - 1].strip()


@pytest.mark.parametrize("old, new, why, line", [
    ("            logger.info(f\"recovered ranks {down} from rank {src}\")\n            self.forward_pass_id = 0\n",
     "            self.forward_pass_id = 0\n            logger.info(f\"recovered ranks {down} from rank {src}\")\n",
     r"this write is followed on its path by `logger.info\(", "self.forward_pass_id = 0"),
    ("            self.forward_pass_id = 0\n", "            self.forward_pass_id = 0\n        self.seed += 0\n",
     r"followed on its path by `self.seed \+= 0`", "self.forward_pass_id = 0"),
    ("            self.forward_pass_id = 0\n", "            self.forward_pass_id = len(down)\n",
     "the value is no literal", "self.forward_pass_id = len(down)"),
    ("        if all(self.active):\n            return\n", "        if all(self.active):\n"
     "            self.forward_pass_id = 1\n            return\n", "self.forward_pass_id is written 0 and 1",
     "self.forward_pass_id = 0"),
    ("        if down and try_recover(down):\n", "        for _ in down:\n            self.forward_pass_id = 0\n"
     "        if down and try_recover(down):\n", "written inside a loop", "self.forward_pass_id = 0"),
    ("        if all(self.active):\n", "        if all(self.active) or self.forward_pass_id:\n",
     "also uses self.forward_pass_id other than by those writes", "if all(self.active) or self.forward_pass_id:"),
    ("        if all(self.active):\n            return\n", "        if all(self.active):\n            return 1\n",
     "returns a value", "return 1"),
    ("            self.forward_pass_id = 0\n", "            self.forward_pass_id = 0\n            self.passes = 0\n",
     "followed on its path by `self.passes = 0`", "self.forward_pass_id = 0"),
])
def test_refusals_name_the_line(tmp_path, old, new, why, line):
    root = _alone(tmp_path)
    _edit(root, old, new)
    assert _refused(root, ONE, why) == line


def test_a_write_followed_by_another_write_of_self_is_refused_as_two_results(tmp_path):
    root = _alone(tmp_path)
    _edit(root, "        if all(self.active):\n", "        self.passes = 0\n        if all(self.active):\n")
    assert _refused(root, ONE, "also writes self.passes: the function returns only whether it wrote") == \
        "def maybe_recover(self):"


def test_the_fixtures_other_writes_are_refused(tmp_path):
    root = _tree(tmp_path)
    spec = replace(ONE, method_name="reset_stats", write_back="passes")
    assert _refused(root, spec, r"followed on its path by `logger.info\(\"stats reset\"\)`") == "self.passes = 0"
    spec = replace(ONE, method_name="forward", write_back="forward_pass_id")
    assert _refused(root, spec, r"only a plain `self.forward_pass_id = VALUE`") == "self.forward_pass_id += 1"
    assert _refused(root, replace(ONE, write_back="seed"), "never writes self.seed") == "def maybe_recover(self):"


@pytest.mark.parametrize("change, why", [
    ({"write_back": "forward_pass_id=self"}, "FLAG names a local"),
    ({"write_back": "forward_pass_id="}, "--write-back expects ATTR or ATTR=FLAG"),
    ({"write_back": "a.b"}, "--write-back expects ATTR or ATTR=FLAG"),
    ({"pass_self": "runner"}, "--write-back with --pass-self"),
])
def test_bad_input(tmp_path, change, why):
    with pytest.raises(BadInput, match=why):
        refactor(_tree(tmp_path), replace(ONE, **change))


def test_the_command_line(tmp_path):
    root = _alone(tmp_path)
    run = subprocess.run([sys.executable, "-m", "codemods.extract_method", str(root), "ModelRunner.maybe_recover",
                          "sglang.srt.elastic.recovery", "--write-back", "forward_pass_id=recovered", "--dry-run"],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "+        if recovered:\n" in run.stdout and "+        return True\n" in run.stdout
    _edit(root, "            self.forward_pass_id = 0\n", "            self.forward_pass_id = 0\n            pass\n"
          "        logger.info('x')\n")
    run = subprocess.run([sys.executable, "-m", "codemods.extract_method", str(root), "ModelRunner.maybe_recover",
                          "sglang.srt.elastic.recovery", "--write-back", "forward_pass_id"],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 3
    assert f"{root / RUNNER}:35: --write-back forward_pass_id: this write is followed on its path by " \
           f"`logger.info('x')`" in run.stderr


REAL = MethodSpec(class_name="ModelRunner", method_name="maybe_recover_ep_ranks",
                  methods=("maybe_recover_ep_ranks", "_get_healthy_expert_location_src_rank"),
                  target_module="sglang.srt.elastic_ep.elastic_ep", no_wrapper=True, write_back="forward_pass_id=recovered",
                  names={"_get_healthy_expert_location_src_rank": "get_healthy_expert_location_src_rank"})


def test_on_0_5_15_post1_the_write_first_in_its_branch_is_refused_and_moved_last_gives_upstreams_shape(tmp_path):
    from tests.releases import release_root

    release = release_root("0.5.15.post1")
    with pytest.raises(Refusal, match=r"this write is followed on its path by `self.eplb_manager.reset_generator\(\)`") \
            as exc:
        refactor(release, REAL)
    assert (exc.value.path, exc.value.line) == (release / "sglang/srt/model_executor/model_runner.py", 1802)
    root = tmp_path / "r"
    shutil.copytree(release / "sglang", root / "sglang")
    path = root / "sglang/srt/model_executor/model_runner.py"
    text = path.read_text()
    write = "            self.forward_pass_id = 0\n"
    log = '            logger.info(f"recover ranks {ranks_to_recover} done")\n'
    path.write_text(text.replace(write + "            self.eplb_manager", "            self.eplb_manager")
                    .replace(log, log + write))  # by hand: upstream's order
    write_plan(refactor(root, REAL))
    runner = path.read_text()
    assert "def maybe_recover_ep_ranks" not in runner and (
        "            recovered = elastic_ep.maybe_recover_ep_ranks(\n                tp_group=self.tp_group,\n"
        "                eplb_manager=self.eplb_manager,\n                server_args=self.server_args,\n"
        "            )\n            if recovered:\n                self.forward_pass_id = 0\n") in runner
    moved = (root / "sglang/srt/elastic_ep/elastic_ep.py").read_text()
    assert "def maybe_recover_ep_ranks(*, tp_group, eplb_manager, server_args) -> bool:\n" in moved
    assert "        return False\n" in moved and (log.replace("    ", "", 1) + "        return True\n\n    return False\n"
                                                  ) in moved
    assert "src_rank=get_healthy_expert_location_src_rank(\n" in moved
    with pytest.raises(AlreadyApplied):
        refactor(root, REAL)


def test_without_a_wrapper_a_call_from_outside_the_class_is_refused(tmp_path):
    root = _alone(tmp_path)
    (root / "sglang/srt/driver.py").write_text(
        "from sglang.srt.model_executor.model_runner import ModelRunner\n\n\n"
        "def drive(runner: ModelRunner):\n    runner.maybe_recover()\n")
    with pytest.raises(Refusal) as exc:
        refactor(root, replace(ONE, no_wrapper=True))
    assert "driver.py:5" in str(exc.value)
    assert refactor(root, ONE).changes  # with the wrapper, the call goes on through it


def _proof(before: Path, after: Path, tmp_path: Path) -> dict:
    """`python -m equivalence BEFORE AFTER` (nothing named): the report of `maybe_recover`'s move."""
    from equivalence.cli import main

    out = tmp_path / "report.json"
    main([str(before), str(after), "--json", str(out)])
    report = json.loads(out.read_text())
    return next(c["report"] for c in report["checks"] if "ModelRunner.maybe_recover" in c["moves"])


@pytest.mark.parametrize("no_wrapper", [False, True], ids=["wrapper", "no-wrapper"])
def test_the_proof_reads_the_flag_written_back_as_the_old_write(tmp_path, no_wrapper):
    """The static check reads each `return True` as the caller's write there and `return False` as
    a bare `return`: no residual line (they were three: the move was inconclusive however its
    branches ran; on 0.5.15.post1, with every branch run, it is equivalent now)."""
    before = _alone(tmp_path / "b")
    after = _alone(tmp_path / "a")
    write_plan(refactor(after, replace(ONE, no_wrapper=no_wrapper)))
    report = _proof(before, after, tmp_path)
    (pair,) = report["pairs"]
    assert pair["static"]["residuals"] == [] and any(e["kind"] == "result" for e in pair["static"]["map"])
    # no difference; not every branch: `down` is never empty once not all are active (both sides)
    assert not pair["divergences"] and report["verdict"] == "inconclusive"
    assert [m.split(": ", 1)[1] for side in ("before", "after") for m in pair["coverage"][side]["missed"]] == \
        ["and: operand 1 short-circuits"] * 2


def test_a_flag_returned_before_the_last_step_is_a_difference(tmp_path):
    """`return True` before the log: the old method logged, then wrote; a caller that writes back
    on the flag cannot put the log back. Not a pass."""
    before = _alone(tmp_path / "b")
    after = _alone(tmp_path / "a")
    write_plan(refactor(after, replace(ONE, no_wrapper=True)))
    text = (after / TARGET).read_text()
    log = '        logger.info(f"recovered ranks {down} from rank {src}")\n'
    assert text.count(log + "        return True\n") == 1
    (after / TARGET).write_text(text.replace(log + "        return True\n", "        return True\n" + log))
    report = _proof(before, after, tmp_path)
    (pair,) = report["pairs"]
    assert report["verdict"] != "equivalent" and pair["static"]["residuals"], report["verdict"]
