"""--fix fp4-fallback / kv-str-lookup: exact output on our shapes, refusals, CLI, commits."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from codemods.extract_kv_dtype import AlreadyApplied, Refusal, refactor, write_plan
from codemods.extract_kv_dtype.__main__ import main
from tests.codemod_expected import RUNNER, TARGET, TREES, expected_files

HELPER = '''

def kv_cache_dtype_to_str(dtype: torch.dtype) -> str:
    """The --kv-cache-dtype string naming `dtype`; ValueError for a dtype it has none for."""
    if dtype not in TORCH_DTYPE_TO_KV_CACHE_STR:
        accepted = ", ".join(str(d) for d in TORCH_DTYPE_TO_KV_CACHE_STR)
        raise ValueError(
            f"KV cache dtype {dtype} has no --kv-cache-dtype string; accepted dtypes: {accepted}"
        )
    return TORCH_DTYPE_TO_KV_CACHE_STR[dtype]
'''
GUARD = '''    resolved_kv_cache_dtype: Optional[str] = None
    # Without float4 support, fp4_e2m1 really falls back to the 'auto' resolution below.
    if server_args_kv_cache_dtype == "fp4_e2m1" and not hasattr(
        torch, "float4_e2m1fn_x2"
    ):
        logger.warning(
            f"--kv-cache-dtype falls back to 'auto': {why}"
        )
        server_args_kv_cache_dtype = "auto"
'''
FP4_BEFORE = '''    elif server_args_kv_cache_dtype == "fp4_e2m1":
        if hasattr(torch, "float4_e2m1fn_x2"):
            kv_cache_dtype = torch.float4_e2m1fn_x2
            logger.warning(f"An FP4 (E2M1) KV cache may cost accuracy.")
        else:
            logger.warning(
                f"--kv-cache-dtype falls back to 'auto': {why}"
            )
            kv_cache_dtype = model_dtype
'''
FP4_AFTER = '''    elif server_args_kv_cache_dtype == "fp4_e2m1":
        kv_cache_dtype = torch.float4_e2m1fn_x2
        logger.warning(f"An FP4 (E2M1) KV cache may cost accuracy.")
'''
WHY = "torch.float4_e2m1fn_x2 is missing from this torch"
LOOKUP = "TORCH_DTYPE_TO_KV_CACHE_STR[kv_cache_dtype]"
SHAPES = ("record_dflash", "server_args_write")


def expected_fixed(shape: str, fixes: tuple[str, ...]) -> str:
    """The reviewed step-4 module with each fix's exact edit spelled out."""
    text = expected_files(shape, 4)[TARGET]
    if "kv-str-lookup" in fixes:
        assert LOOKUP in text
        text = text.replace(LOOKUP, "kv_cache_dtype_to_str(kv_cache_dtype)")
        text = text.replace('    torch.bfloat16: "bf16",\n}\n', '    torch.bfloat16: "bf16",\n}\n' + HELPER)
    if "fp4-fallback" in fixes:
        before, guard = FP4_BEFORE.format(why=WHY), GUARD.format(why=WHY)
        assert before in text
        text = text.replace(before, FP4_AFTER)
        text = text.replace("    resolved_kv_cache_dtype: Optional[str] = None\n", guard)
    return text


def step4_tree(tmp_path: Path, shape: str = "record_dflash") -> Path:
    root = tmp_path / shape
    shutil.copytree(TREES / shape, root)
    for rel, text in expected_files(shape, 4).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


FIX_SETS = [("fp4-fallback",), ("kv-str-lookup",), ("kv-str-lookup", "fp4-fallback")]


@pytest.mark.parametrize("fixes", FIX_SETS, ids=["+".join(f) for f in FIX_SETS])
@pytest.mark.parametrize("shape", SHAPES)
def test_fix_gives_the_reviewed_output(tmp_path, shape, fixes):
    root = step4_tree(tmp_path, shape)
    plan = refactor(root, None, fixes=list(fixes))
    write_plan(plan)
    assert (root / TARGET).read_text() == expected_fixed(shape, fixes)
    assert (root / RUNNER).read_text() == expected_files(shape, 4)[RUNNER]
    assert [s.fix for s in plan.steps] == list(fixes)


@pytest.mark.parametrize("shape", SHAPES)
def test_fixes_in_one_run_with_all_steps(tmp_path, shape):
    root = tmp_path / shape
    shutil.copytree(TREES / shape, root)
    plan = refactor(root, fixes=["fp4-fallback", "kv-str-lookup"])
    assert [s.number for s in plan.steps] == [1, 2, 3, 4, 4, 4]
    write_plan(plan)
    assert (root / TARGET).read_text() == expected_fixed(shape, ("kv-str-lookup", "fp4-fallback"))


def test_second_run_says_already_applied(tmp_path):
    root = step4_tree(tmp_path)
    write_plan(refactor(root, None, fixes=["fp4-fallback"]))
    with pytest.raises(AlreadyApplied, match="fix fp4-fallback"):
        refactor(root, None, fixes=["fp4-fallback"])
    plan = refactor(root, None, fixes=["fp4-fallback", "kv-str-lookup"])  # one left to do
    assert [s.fix for s in plan.steps] == ["kv-str-lookup"]
    assert any("fix fp4-fallback: " in m and "already applied" in m for m in plan.messages)


OFF_SHAPE = [
    ("no-else", "        else:\n            logger.warning(", "        elif True:\n            logger.warning(",
     "fp4-fallback", "no plain else"),
    ("no-auto-branch", 'server_args_kv_cache_dtype == "auto"', 'server_args_kv_cache_dtype == "automatic"',
     "fp4-fallback", "no `server_args_kv_cache_dtype == 'auto'` branch"),
    ("read-after-chain", "    return resolved_kv_cache_dtype, kv_cache_dtype",
     "    print(server_args_kv_cache_dtype)\n    return resolved_kv_cache_dtype, kv_cache_dtype",
     "fp4-fallback", "read after the chain"),
    ("no-lookup", LOOKUP, "None", "kv-str-lookup", "no TORCH_DTYPE_TO_KV_CACHE_STR[...] lookup"),
    ("table-written", "            kv_cache_dtype = model_dtype\n    elif",
     "            kv_cache_dtype = model_dtype\n            TORCH_DTYPE_TO_KV_CACHE_STR[model_dtype] = 'x'\n    elif",
     "kv-str-lookup", "writes TORCH_DTYPE_TO_KV_CACHE_STR"),
]


@pytest.mark.parametrize("old,new,fix,why", [c[1:] for c in OFF_SHAPE], ids=[c[0] for c in OFF_SHAPE])
def test_refuses_a_function_off_shape_naming_file_and_line(tmp_path, old, new, fix, why):
    root = step4_tree(tmp_path, "server_args_write")
    target = root / TARGET
    text = target.read_text()
    assert old in text
    target.write_text(text.replace(old, new))
    with pytest.raises(Refusal) as info:
        refactor(root, None, fixes=[fix])
    assert why in info.value.why and info.value.path == target
    if fix == "fp4-fallback":
        assert info.value.line


# --- command line ---------------------------------------------------------------------------

def run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_fix_alone_on_a_refactored_tree(tmp_path, capsys):
    root = step4_tree(tmp_path)
    code, _, err = run([root, "--fix", "fp4-fallback"], capsys)
    assert code == 0 and "steps 1-4 already applied" in err and "fix fp4-fallback:" in err
    assert (root / TARGET).read_text() == expected_fixed("record_dflash", ("fp4-fallback",))
    code, _, err = run([root, "--fix", "fp4-fallback"], capsys)
    assert code == 5 and "already applied" in err and "fp4-fallback" in err


def test_cli_fix_with_steps(tmp_path, capsys):
    root = tmp_path / "t"
    shutil.copytree(TREES / "record_call", root)
    code, _, err = run([root, "--steps", "1-4", "--fix", "kv-str-lookup"], capsys)
    assert code == 0 and "step 4:" in err and "fix kv-str-lookup:" in err
    assert (root / TARGET).read_text() == expected_fixed("record_call", ("kv-str-lookup",))


def test_cli_fix_needs_steps_to_reach_4(tmp_path, capsys):
    root = tmp_path / "t"
    shutil.copytree(TREES / "record_call", root)
    before = (root / RUNNER).read_text()
    code, _, err = run([root, "--steps", "1-2", "--fix", "kv-str-lookup"], capsys)
    assert code == 2 and "fixes apply after step 4" in err
    assert (root / RUNNER).read_text() == before and not (root / TARGET).exists()


def test_cli_unknown_fix(tmp_path, capsys):
    root = step4_tree(tmp_path)
    with pytest.raises(SystemExit) as info:
        main([str(root), "--fix", "everything"])
    assert info.value.code == 2 and "invalid choice: 'everything'" in capsys.readouterr().err


def test_cli_refusal_exit_3(tmp_path, capsys):
    root = step4_tree(tmp_path)
    target = root / TARGET
    target.write_text(target.read_text().replace('== "auto"', '== "automatic"'))
    code, _, err = run([root, "--fix", "fp4-fallback"], capsys)
    assert code == 3 and f"{target}:" in err and "'auto'" in err


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def test_cli_commit_makes_one_commit_per_step_and_fix(tmp_path, capsys, monkeypatch):
    for var in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(var, "t@t")
    root = tmp_path / "t"
    shutil.copytree(TREES / "record_dflash", root)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    code, out, err = run([root, "--commit", "--fix", "fp4-fallback", "--fix", "kv-str-lookup"], capsys)
    assert code == 0 and "committed fix fp4-fallback:" in err and out == ""
    subjects = git(root, "log", "--format=%s").splitlines()
    assert len(subjects) == 7 and subjects[-1] == "base"
    assert subjects[0].startswith("Really fall back to 'auto' for fp4_e2m1")
    assert subjects[1].startswith("Raise a clear ValueError")
    assert git(root, "show", "--format=", "--name-only", "HEAD").split() == [TARGET]
    assert git(root, "status", "--porcelain") == ""


def test_help_documents_fixes(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for word in ("--fix", "fp4-fallback", "kv-str-lookup", "Without --steps", "already applied"):
        assert word in out
