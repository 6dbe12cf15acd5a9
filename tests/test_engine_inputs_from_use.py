"""Issue 17 on a fixture of our own (fixtures/methods/args, a small ServerArgs; tests/args_trees.py
moves its methods by hand): what to vary comes from how the code uses a value, a call site that
cannot run says so, a branch no input can take is unreachable (with why), a residual difference
no configuration told apart is not proven, and what module-level code accepts gets it imported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from equivalence.cli import main
from tests.args_trees import HOOKS, SOURCE, moved, original


def run(tmp_path: Path, name: str, after: Path, *extra: str) -> tuple[int, dict, str]:
    before = tmp_path / "before"
    if not before.exists():
        original(before)
    out, md = tmp_path / f"{after.name}.json", tmp_path / f"{after.name}.md"
    code = main(["--method", f"ServerArgs.{name}", str(before), str(after), "--json", str(out), "--markdown", str(md),
                 *extra])
    return code, json.loads(out.read_text()), md.read_text()


def full(pair: dict) -> bool:
    return all(c["hit"] == c["branches"] and not c["missed"] for c in pair["coverage"].values())


def killed_all(report: dict, at_least: float = 1.0) -> bool:
    m = report["mutants"]
    return m["total"] >= 5 and m["killed"] >= at_least * m["total"]


# --- a call site that reads a local it also assigns, and hands it on ------------------------


def test_a_running_total_is_read_and_handed_on(tmp_path):
    """`reserved += self.reserve_mb()` reads `reserved` before binding it: it is an input
    (`local:reserved`), never an UnboundLocalError at the entry; what the statements leave in it
    for the rest of the method is observed (a changed total diverges)."""
    code, report, _ = run(tmp_path, "reserve_mb", moved(tmp_path / "after", "reserve_mb"), "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent"), report["pairs"][0].get("could_not_run")
    (pair,) = report["pairs"]
    assert full(pair) and "local:reserved" in pair["inputs"]
    assert 61440 in pair["inputs"]["local:gpu_mem"]  # `gpu_mem > 60 * 1024`: the folded constant
    assert killed_all(report)
    code, report, _ = run(tmp_path, "reserve_mb", moved(tmp_path / "edited", "reserve_mb", ("reserved = 0.0", "reserved = 1.0")))
    assert (code, report["verdict"]) == (1, "divergent")
    assert "different-handed-on" in {d["kind"] for d in report["pairs"][0]["divergences"]}


def test_a_constant_test_is_unreachable_and_not_mutated(tmp_path):
    code, report, _ = run(tmp_path, "reserve_mb", moved(tmp_path / "after", "reserve_mb"), "--mutants")
    (pair,) = report["pairs"]
    for side in ("before", "after"):
        (why,) = pair["coverage"][side]["unreachable"]
        assert "if true" in why and "`DEBUG_RESERVE` is always false: it depends only on constants" in why
    # the logging under `if DEBUG_RESERVE:` can never run: no mutant of it is counted as a survivor
    assert not any(s["description"].startswith("`logger.info") for s in report["mutants"]["survivors"])


def test_a_call_site_that_raises_before_the_call_could_not_run(tmp_path):
    broken = ("reserved += self.reserve_mb()", "reserved += [][0] + self.reserve_mb()")
    after = moved(tmp_path / "after", "reserve_mb", site_edit=broken)
    before = original(tmp_path / "before")
    (before / SOURCE).write_text((before / SOURCE).read_text().replace(*broken))
    code, report, md = run(tmp_path, "reserve_mb", after)
    assert (code, report["verdict"]) == (2, "could not run")
    (pair,) = report["pairs"]
    assert "every configuration raised before calling the method: IndexError: list index out of range" \
        in pair["could_not_run"] and "server_args.py:37" in pair["could_not_run"]
    assert "### Could not run" in md and pair["could_not_run"] in md


def test_an_import_that_fails_could_not_run_in_every_format(tmp_path, capsys):
    after = moved(tmp_path / "after", "reserve_mb")
    hooks = after / HOOKS
    hooks.write_text(hooks.read_text().replace("_MODE = _validated_mode(", 'raise RuntimeError("no hooks here")\n_MODE = ('))
    code, report, md = run(tmp_path, "reserve_mb", after)
    assert (code, report["verdict"]) == (2, "could not run")
    (pair,) = report["pairs"]
    assert "importing failed: RuntimeError: no hooks here" in pair["could_not_run"]
    out, err = capsys.readouterr()
    assert "could not run: " in out and "importing failed" in md and "equivalence: could not run" in err


def test_module_level_code_validating_a_stubbed_value_gets_what_it_accepts(tmp_path):
    """hooks.py validates SGLANG_HOOK_MODE (read through the stubbed envs) at import: the import is
    retried with the value one of the literals the code compared it with, and the report says so."""
    code, report, md = run(tmp_path, "reserve_mb", moved(tmp_path / "after", "reserve_mb"))
    assert code == 0
    (assumed,) = report["pairs"][0]["imported_with"].values()
    (how,) = assumed.values()
    assert how == {"value": "'off'", "compared_with": ["'off'", "'record'", "'enforce'"]}
    assert "imported with" in md


# --- isinstance, strings, lengths, conversions ---------------------------------------------


def test_isinstance_tests_give_the_tested_types(tmp_path):
    code, report, _ = run(tmp_path, "check_paths", moved(tmp_path / "after", "check_paths"), "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert full(pair) and killed_all(report)
    paths = pair["inputs"]["self.paths"]
    assert {"<list of 1>", "<dict of nothing>"} <= set(paths) and any(str(p).startswith("<dict of 'name'") for p in paths)
    item = pair["inputs"]["self.paths[0]"]
    assert {"x", "a=b", "a=b=c"} <= set(item)  # a string, one holding the separator once and twice


def test_lengths_conversions_and_chains_of_literals(tmp_path):
    code, report, _ = run(tmp_path, "validate_rule", moved(tmp_path / "after", "validate_rule"), "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert full(pair) and killed_all(report, 0.9)
    rule = set(pair["inputs"]["self.buckets"])
    assert {"<list of 4>", "<truthy, 0 items>"} <= rule  # `len(rule) == 4`; `not rule` and `len(rule) > 0` apart
    assert "x" in pair["inputs"]["self.buckets[1]"]  # float(x) of a string that is no number
    unreachable = pair["coverage"]["after"]["unreachable"]
    assert any("elif false" in u and "`kind` is one of" in u for u in unreachable)
    assert sum("assert holds" in u and "`False` is always false" in u for u in unreachable) == 2


def test_case_and_extension_of_a_literal_and_a_platform_attribute(tmp_path):
    code, report, _ = run(tmp_path, "resolve_kv_dtype", moved(tmp_path / "after", "resolve_kv_dtype"), "--mutants")
    # (one mutant cannot be killed: getattr's default None becoming a string the tests never accept)
    (pair,) = report["pairs"]
    assert pair["verdict"] == "equivalent"
    assert full(pair) and killed_all(report, 0.9)
    assert pair["inputs"]["torch.float4_e2m1fn_x2"] == ["torch.float4_e2m1fn_x2", "<absent>"]
    assert {"FP8", "fp8", "FP8x"} <= set(pair["inputs"]["self.quant_config.kv_cache_quant_algo"])
    edit = ('algo.upper() == "FP8"', 'algo.upper().startswith("FP8")')
    code, report, _ = run(tmp_path, "resolve_kv_dtype", moved(tmp_path / "edited", "resolve_kv_dtype", edit))
    assert (code, report["verdict"]) == (1, "divergent")
    assert any(d["example"].get("self.quant_config.kv_cache_quant_algo") == "FP8x" for d in report["pairs"][0]["divergences"])


def test_a_call_under_try_may_raise_what_is_caught(tmp_path):
    code, report, _ = run(tmp_path, "transfer_available", moved(tmp_path / "after", "transfer_available"), "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert full(pair) and killed_all(report)
    key = "importlib.util.find_spec('transfer_lib_not_installed.engine')"
    assert {"<raises ModuleNotFoundError>", "<raises ValueError>", None} <= set(pair["inputs"][key])


def test_a_call_under_except_baseexception_may_raise(tmp_path):
    """`except BaseException:` catches what a bare `except:` does: the call under it may raise."""
    code, report, _ = run(tmp_path, "load_plugins", moved(tmp_path / "after", "load_plugins"), "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert full(pair) and report["mutants"]["killed"] == report["mutants"]["total"] >= 2
    assert "<raises Exception>" in pair["inputs"]["self.plugin_loader.load('<self.plugin_names>')"]


# --- what the runs cannot settle -------------------------------------------------------------


def test_a_residual_no_configuration_told_apart_is_not_proven(tmp_path):
    """`len(rule) > 0` and `len(rule) >= 1` agree on every int: the runs see no difference, but
    the static check does, and the extraction does not explain it: inconclusive, naming the line."""
    edit = ("assert len(rule) > 0", "assert len(rule) >= 1")
    code, report, md = run(tmp_path, "validate_rule", moved(tmp_path / "after", "validate_rule", edit))
    assert (code, report["verdict"]) == (2, "inconclusive")
    (pair,) = report["pairs"]
    (untold,) = pair["untold_residuals"]
    assert untold["kind"] == "changed" and "len(rule) >= 1" in untold["after"]
    assert "no configuration told the versions apart" in untold["why"]
    assert "### Not proven" in md
    assert [r["explained"] for r in pair["static"]["residuals"]] == [False]


# --- the self-check: scores it earned, controls it must let survive ------------------------


def test_controls_survive_and_a_self_check_that_does_not_run_them_fails(tmp_path, monkeypatch):
    after = moved(tmp_path / "after", "reserve_mb")
    code, report, md = run(tmp_path, "reserve_mb", after, "--mutants")
    controls = report["mutants"]["controls"]
    assert code == 0 and controls["total"] == 4 and controls["survived"] == 4, controls
    assert {i.split("@")[0] for i in controls["ids"]} == {"control-comment", "control-noop", "control-swap",
                                                           "control-rename"}
    assert "controls (changes that change nothing, which must survive): 4/4 survived" in md
    # a self-check answering "killed" without loading or running the mutant is caught by its controls
    import equivalence.engine.check as check

    monkeypatch.setattr(check, "survives", lambda *args, **kwargs: None)
    code, report, md = run(tmp_path, "reserve_mb", after, "--mutants")
    assert report["mutants"]["controls"]["survived"] == 0
    # the verdict says so, and the exit status with it: not proven (2), not "equivalent"
    assert (code, report["verdict"]) == (2, "inconclusive") and report["pairs"][0]["verdict"] == "equivalent"
    assert report["verdict_line"] == ("equivalent, but the self-check called 4 of 4 controls (edits that change "
                                      "nothing) divergent: not proven")
    assert f"## Equivalence check: **{report['verdict_line']}**" in md


def test_on_a_divergent_pair_a_mutant_is_killed_only_by_a_new_difference(tmp_path):
    """Every configuration of the edited pair diverges (the function raises first): a mutant shows
    nothing beyond that, so none counts as killed, and the report says what the score means."""
    edit = ("    graphs = server_args.graph_config\n", "    raise RuntimeError('broken')\n    graphs = server_args.graph_config\n")
    code, report, md = run(tmp_path, "reserve_mb", moved(tmp_path / "after", "reserve_mb", edit), "--mutants")
    assert (code, report["verdict"]) == (1, "divergent")
    m = report["mutants"]
    assert m["killed_by"]["run"] == [] and m["total"] >= 5, m  # (a dropped binding after the raise: a static kill)
    # each kill names what showed it, and only a static check can: the rest were run and survived
    assert set(m["killed_by"]) == {"static", "run"} and m["killed"] == len(m["killed_by"]["static"]) < m["total"], m
    assert len(m["survivors"]) == m["total"] - m["killed"] >= m["total"] // 2, m
    assert all("beyond the unmutated pair's own" in s["reason"] or "no divergence" in s["reason"] for s in m["survivors"])
    assert m["controls"]["survived"] == m["controls"]["total"] > 0, m["controls"]
    assert "the unmutated pair is divergent itself" in m["note"] and m["note"] in md


def test_a_changed_global_of_the_unmutated_pair_kills_no_mutant(tmp_path):
    after = moved(tmp_path / "after", "transfer_available")
    hooks = after / HOOKS
    hooks.write_text(hooks.read_text().replace("import importlib.util\n", "import importlib\n"))
    code, report, _ = run(tmp_path, "transfer_available", after, "--mutants")
    assert (code, report["verdict"]) == (1, "divergent")
    assert [d["kind"] for d in report["pairs"][0]["divergences"]] == ["changed-module-global"]
    (changed,) = report["pairs"][0]["divergences"][0]["globals"]
    assert changed["name"] == "importlib" and "importlib.util imported before, not after" in changed["detail"]
    assert "a changed module global" in report["mutants"]["note"]


def test_names_bound_locally_are_never_module_globals(tmp_path):
    """A name bound by `except ... as e`, a nested def, a comprehension, a with-as or a
    function-level import in the moved code is no module global for the static check
    (0.5.15.post1 destroy_weights_update_group: a false changed-module-global `e`; 0.5.18
    _validate_ib_devices: `_normalize_device_group`, a nested def)."""
    def edit(indent: str, name: str) -> tuple[str, str]:
        lines = ["try:", "    import json", "except ImportError as e:", "    raise RuntimeError(e)",
                 "def _port(value):", "    return value", "_port(1)", f"if not {name}.enable_events:"]
        return f"{indent}if not {name}.enable_events:\n", "".join(f"{indent}{line}\n" for line in lines)

    before = original(tmp_path / "before")
    (before / SOURCE).write_text((before / SOURCE).read_text().replace(*edit("        ", "self")))
    after = moved(tmp_path / "after", "describe_publisher", edit("    ", "server_args"))
    code, report, _ = run(tmp_path, "describe_publisher", after)
    names = {c["name"] for c in report["pairs"][0]["static"]["constants"]}
    assert not names & {"e", "json", "_port"}, names


# --- a helper's result keyed by its argument; a version tuple ------------------------------


def test_a_result_keyed_by_a_value_and_a_version_tuple_are_varied(tmp_path):
    """`is_remote_uri(self.served_model_name)` is a new input each time the name takes a value,
    and `torch_release >= (2, 7)` needs tuples on both sides of (2, 7): every branch is run."""
    code, report, _ = run(tmp_path, "check_served_name", moved(tmp_path / "after", "check_served_name"), "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert full(pair) and killed_all(report, 0.9)
    release = next(v for k, v in pair["inputs"].items() if k.endswith("torch_release"))
    assert {(2, 7), (2, 8), (2, 6)} <= {tuple(v) for v in release if isinstance(v, list)}
    edit = ('":" not in', '"::" not in')
    code, report, _ = run(tmp_path, "check_served_name", moved(tmp_path / "edited", "check_served_name", edit))
    assert (code, report["verdict"]) == (1, "divergent")
