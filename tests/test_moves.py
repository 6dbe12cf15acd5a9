"""Issue 31: with nothing named, `python -m equivalence BEFORE AFTER` finds the methods that left
their class (pysource/moves.py: by body similarity, not by names), lists them first and checks
each; a rename in place and a deleted method are no moves; PR #31147's preset runs only when its
method is among the moves (or both trees hold it and nothing moved). Fixtures: fixtures/moves."""

from __future__ import annotations

import json
import textwrap
import shutil
from pathlib import Path

from equivalence.cli import main
from pysource.moves import find_moves

MOVES = Path(__file__).resolve().parent.parent / "fixtures" / "moves"
BEFORE = MOVES / "before"


def _found(after: str) -> dict[str, tuple]:
    return {m.source: (m.kind, m.target, m.wrapper, m.attr) for m in find_moves(BEFORE, MOVES / after)}


def test_functions_found_with_and_without_a_wrapper():
    assert _found("after") == {
        "Engine.align_tokens": ("function, callers rewritten", "sglang.srt.token_math.align_tokens", False, None),
        "Engine.describe_layout": ("function", "sglang.srt.layout.describe", True, None),
        "Engine.verify": ("function", "sglang.srt.acceptance.run_verify", True, None),
        "Engine._accept": ("function, callers rewritten", "sglang.srt.acceptance.accept_prefix", False, None),
        "Engine.check_limits": ("function, callers rewritten", "sglang.srt.hooks.check_limits", False, None),
    }  # rank_of renamed in place to tp_rank_of, dropped_helper deleted: neither is a move


def test_methods_moved_into_a_component_the_owner_holds():
    assert _found("after_component") == {
        "Engine.record": ("component", "Engine.stats_recorder.record", False, "stats_recorder"),
        "Engine.summary": ("component", "Engine.stats_recorder.summary", False, "stats_recorder"),
    }


def test_no_move_between_identical_trees():
    assert find_moves(BEFORE, BEFORE) == []


def _edited(tmp_path: Path, after: str, rel: str, old: str, new: str) -> Path:
    """A copy of fixtures/moves/AFTER with one edit of the file `rel`."""
    edited = tmp_path / "edited"
    shutil.copytree(MOVES / after, edited)
    path = edited / rel
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))
    return edited


def _run(tmp_path: Path, after: Path, *extra: str) -> tuple[int, dict, str]:
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    code = main([str(BEFORE), str(after), "--json", str(out), "--markdown", str(md), *extra])
    return code, json.loads(out.read_text()), md.read_text()


def test_each_move_found_is_checked_and_listed_first(tmp_path, capsys):
    code, report, md = _run(tmp_path, MOVES / "after")
    assert (code, report["verdict"]) == (0, "equivalent")
    assert [(m["from"], m["verdict"]) for m in report["moves"]] == [
        ("Engine.align_tokens", "equivalent"), ("Engine.describe_layout", "equivalent"), ("Engine.verify", "equivalent"),
        ("Engine._accept", "equivalent"), ("Engine.check_limits", "equivalent")]
    assert len(report["pairs"]) == 5 and all(p["verdict"] == "equivalent" for p in report["pairs"])
    assert md.startswith("## Equivalence check: **equivalent**") and "### Moves found: 5" in md
    assert md.index("### Moves found") < md.index("<summary>Engine.align_tokens: equivalent</summary>")
    assert "5 methods moved out of their class: 5 equivalent." in md
    assert "moves found: 5\n  Engine.align_tokens -> sglang.srt.token_math" in capsys.readouterr().out


def test_an_edit_in_one_moved_body_makes_that_move_divergent(tmp_path):
    after = _edited(tmp_path, "after", "sglang/srt/token_math.py", "if n <= 0:", "if n < 0:")
    code, report, md = _run(tmp_path, after)
    assert (code, report["verdict"]) == (1, "divergent")
    # the reviewer reads the move that changes behaviour first, with real values (no stand-in)
    changes = md[md.index("### What changes behaviour"):md.index("### Other edits")]
    assert "`Engine.align_tokens`: one version raises where the other does not" in changes
    assert "`n` = `0`): before raises `ValueError: no tokens: 0`; after returns `0`" in changes
    assert "1 behaves differently" in md and "StandIn" not in changes
    verdicts = {m["from"]: m["verdict"] for m in report["moves"]}
    assert (verdicts["Engine.align_tokens"], verdicts["Engine.describe_layout"]) == ("divergent", "equivalent")
    edits = {m["from"]: m["other_edits"] for m in report["moves"]}
    assert edits["Engine.describe_layout"] == []
    (edit,) = edits["Engine.align_tokens"]  # the edit, apart from the move, with both places
    assert (edit["file"], edit["line"], edit["before"]) == ("sglang/srt/token_math.py", 2, "sglang/srt/engine.py:15")
    assert "n <= 0" in edit["what"] and "n < 0" in edit["what"]


def test_a_helper_moved_along_runs_for_real_inside_its_caller_s_check(tmp_path):
    # _accept -> accept_prefix is called only by run_verify, in the same module: Engine.verify's
    # check runs both for real, their branches counted; an edit of the helper shows there too
    code, report, _ = _run(tmp_path, MOVES / "after")
    (gone,) = next(m for m in report["moves"] if m["from"] == "Engine._accept")["other_edits"]
    assert gone["what"] == ("the call in Engine.verify moved with it: Engine.verify is now "
                            "sglang.srt.acceptance.run_verify (sglang/srt/acceptance.py:1)")
    verify = report["checks"][2]["report"]["pairs"][0]
    assert report["checks"][2]["moves"] == ["Engine.verify"]
    for side in verify["coverage"].values():
        assert side["hit"] == side["branches"] and any(u["unit"].startswith("moved along") for u in side["units"])
    after = _edited(tmp_path, "after", "sglang/srt/acceptance.py", "if token < 0:", "if token <= 0:")
    code, report, _ = _run(tmp_path, after)
    verdicts = {m["from"]: m["verdict"] for m in report["moves"]}
    assert code == 1 and verdicts["Engine._accept"] == verdicts["Engine.verify"] == "divergent"


def test_a_hook_only_other_modules_call_is_driven_from_the_old_receiver(tmp_path):
    # Engine.check_limits -> hooks.check_limits(engine, strict=False), called from pipeline.py
    # only: the check writes a delegation into the class (engine=self, strict=strict)
    code, report, _ = _run(tmp_path, MOVES / "after")
    hook = next(m for m in report["moves"] if m["from"] == "Engine.check_limits")
    assert hook["verdict"] == "equivalent"
    assert "engine=self, strict=strict" in hook["why"] and "sglang/srt/pipeline.py:6" in hook["why"]
    after = _edited(tmp_path, "after", "sglang/srt/hooks.py", "> 64:", ">= 64:")
    assert not (after / "sglang/srt/engine.py").read_text().count("def check_limits")  # nothing written to the tree
    code, report, _ = _run(tmp_path, after)
    assert code == 1 and {m["from"]: m["verdict"] for m in report["moves"]}["Engine.check_limits"] == "divergent"
    assert not (after / "sglang/srt/engine.py").read_text().count("def check_limits")


def test_nothing_moved_and_nothing_named_is_a_usage_answer(tmp_path, capsys):
    code = main([str(BEFORE), str(BEFORE)])
    assert code == 2
    assert "no method left its class" in capsys.readouterr().err


def test_a_hand_written_component_is_proven_through_the_owner(tmp_path):
    # the component sets its own state up in a hand-written `__init__` (no dataclass fields), and
    # the owner builds it in its own `__init__`: the moved state is still found and compared
    code, report, _ = _run(tmp_path, MOVES / "after_component")
    assert (code, report["verdict"]) == (0, "equivalent")
    assert {m["from"]: m["verdict"] for m in report["moves"]} == {"Engine.record": "equivalent",
                                                                  "Engine.summary": "equivalent"}
    (pair,) = report["pairs"]
    assert all(c["hit"] == c["branches"] > 0 for c in pair["coverage"].values())


def test_an_edit_inside_the_component_is_divergent(tmp_path):
    after = _edited(tmp_path, "after_component", "sglang/srt/stats.py", "if len(counts) > 1:", "if len(counts) > 2:")
    code, report, _ = _run(tmp_path, after)
    assert (code, report["verdict"]) == (1, "divergent")


def _commit_after(repo: Path) -> None:
    """The fixture's after tree committed in `repo` (a checkout of the before tree)."""
    from tests.git_series import git

    shutil.rmtree(repo / "python" / "sglang")
    shutil.copytree(MOVES / "after" / "sglang", repo / "python" / "sglang", dirs_exist_ok=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Move Engine's helpers out")


def test_a_hand_made_extraction_committed_in_git_is_found_and_checked(tmp_path):
    from tests.git_series import make_checkout

    repo = make_checkout(tmp_path / "repo", BEFORE)
    _commit_after(repo)
    out = tmp_path / "r.json"
    code = main(["--git", "HEAD~1..HEAD", str(repo), "--json", str(out)])
    report = json.loads(out.read_text())
    assert (code, report["verdict"]) == (0, "equivalent")
    assert len(report["moves"]) == 5 and report["revisions"]["checked"][0]["subject"] == "Move Engine's helpers out"


def test_commits_name_every_commit_and_the_verdict_of_the_moves_each_made(tmp_path):
    """A commit that moved nothing is listed as such; the moves' verdicts go to the commit that
    made them (they had been given to the range's first commits in turn, the count was theirs)."""
    from tests.git_series import git, make_checkout

    repo = make_checkout(tmp_path / "repo", BEFORE)
    (repo / "NOTES.md").write_text("the helpers move next\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Say what comes")
    _commit_after(repo)
    out = tmp_path / "r.json"
    code = main(["--commits", "HEAD~2..HEAD", str(repo), "--json", str(out)])
    report = json.loads(out.read_text())
    assert (code, report["verdict"]) == (0, "equivalent") and len(report["moves"]) == 5
    assert [(c["subject"], c["verdict"]) for c in report["revisions"]["checked"]] == [
        ("Say what comes", "nothing checked"), ("Move Engine's helpers out", "equivalent")]


def test_an_edit_at_a_call_site_is_listed_apart_from_the_move(tmp_path):
    after = _edited(tmp_path, "after", "sglang/srt/engine.py", "return align_tokens(n, self.tp_size",
                    "return align_tokens(n + 1, self.tp_size")
    code, report, md = _run(tmp_path, after)
    move = next(m for m in report["moves"] if m["from"] == "Engine.align_tokens")
    assert move["verdict"] == "divergent"  # the call passes another value: the check runs through it
    (edit,) = [e for e in move["other_edits"] if "arguments changed" in e["what"]]
    assert (edit["file"], edit["before"]) == ("sglang/srt/engine.py", "sglang/srt/engine.py:12")
    assert "(n) -> (n + 1)" in edit["what"] and "arguments changed in Engine.run" in md


def test_the_preset_checks_its_own_move_and_every_other_move_is_checked_as_usual(tmp_path):
    # PR #31147's extraction done by the codemod, and by hand one more method moved out with a
    # wrapper: the preset checks configure_kv_cache_dtype, the other move gets its own check
    from codemods.extract_kv_dtype import refactor

    kv_before = Path(__file__).resolve().parent.parent / "fixtures" / "trees" / "record_dflash"
    after = tmp_path / "after"
    shutil.copytree(kv_before, after)
    for path, text in refactor(after).changes.items():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)
    runner = after / "sglang/srt/model_executor/model_runner.py"
    text = runner.read_text()
    start = text.index("    def profile_max_num_token")
    end = text.index("    def init_memory_pool")
    runner.write_text(text[:start] + "    def profile_max_num_token(self, total_gpu_memory: int) -> int:\n"
                      "        return max_tokens_for(self.model_config, self.gpu_id, self.kv_cache_dtype, "
                      "total_gpu_memory)\n\n" + text[end:])
    body = text[start:end].replace("self.model_config", "model_config").replace("self.gpu_id", "gpu_id") \
        .replace("self.kv_cache_dtype", "kv_cache_dtype").replace("(self, total_gpu_memory: int)",
                                                                   "(model_config, gpu_id, kv_cache_dtype, total_gpu_memory)")
    (after / "sglang/srt/mem_cache/token_budget.py").write_text(
        "from sglang.srt.utils import get_available_gpu_memory\n\n\n" + textwrap.dedent(body))
    runner.write_text(runner.read_text().replace("\nclass ModelRunner", "\nfrom sglang.srt.mem_cache.token_budget "
                                                 "import max_tokens_for\n\n\nclass ModelRunner", 1))
    (after / "sglang/srt/mem_cache/token_budget.py").write_text(
        (after / "sglang/srt/mem_cache/token_budget.py").read_text().replace("def profile_max_num_token",
                                                                            "def max_tokens_for"))
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    code = main([str(kv_before), str(after), "--json", str(out), "--markdown", str(md), "--examples", "20"])
    report = json.loads(out.read_text())
    verdicts = {m["from"]: m["verdict"] for m in report["moves"]}
    assert verdicts == {"ModelRunner.configure_kv_cache_dtype": "equivalent",
                        "ModelRunner.profile_max_num_token": "equivalent"}, report["moves"]
    assert (code, report["verdict"]) == (0, "equivalent")
    assert [c["kind"] for c in report["checks"]] == ["preset", "method"] or \
        [c["kind"] for c in report["checks"]] == ["method", "preset"]
    text = md.read_text()
    assert "### Moves found: 2" in text and "<summary>ModelRunner.profile_max_num_token: equivalent" in text
    assert "<summary>ModelRunner.configure_kv_cache_dtype: equivalent" in text


def test_a_field_s_source_changed_on_the_way_is_an_edit_apart_from_an_equivalent_move(tmp_path):
    # describe_layout moved by hand, and on the way the wrapper passes `self.parallel.tp_size`
    # where the old body read `self.tp_size`, and the function got a default for page_size
    after = _edited(tmp_path, "after", "sglang/srt/engine.py",
                    "return layout.describe(prefix, self.tp_size, self.page_size)",
                    "return layout.describe(prefix, self.parallel.tp_size, self.page_size)")
    engine = after / "sglang/srt/engine.py"
    engine.write_text(engine.read_text().replace("        self.stats = {}\n", "        self.stats = {}\n"
                                                 "        self.parallel = Parallel(tp_size)\n", 1)
                      .replace("class Engine:", "class Parallel:\n    def __init__(self, tp_size):\n"
                               "        self.tp_size = tp_size\n\n\nclass Engine:"))
    layout = after / "sglang/srt/layout.py"
    layout.write_text(layout.read_text().replace("tp_size, page_size):", "tp_size, page_size=1):"))
    code, report, md = _run(tmp_path, after)
    assert (code, report["verdict"]) == (1, "divergent")  # behaviour changed: the exit status says so
    move = next(m for m in report["moves"] if m["from"] == "Engine.describe_layout")
    assert (move["verdict"], move["path_verdict"]) == ("equivalent", "divergent")
    assert move["verdict_line"] == "the move is equivalent; 1 other edit on its path changes behaviour"
    source, default = [e for e in move["other_edits"] if e["what"].startswith(("field source", "default"))]
    assert source["changes_behaviour"] and (source["file"], source["before"]) == ("sglang/srt/engine.py",
                                                                                 "sglang/srt/engine.py:21")
    assert "`tp_size` is passed `self.parallel.tp_size` where the old body read `self.tp_size`" in source["what"]
    assert (default["file"], default["line"]) == ("sglang/srt/layout.py", 1) and "`page_size=1`" in default["what"]
    assert "5 equivalent. 1 other edit on their way changes behaviour." in md
    assert "`Engine.describe_layout`: the move alone is equivalent; the edit on its way" in md
    # the same edit undone: nothing changes behaviour, the default stays listed
    engine.write_text(engine.read_text().replace("self.parallel.tp_size", "self.tp_size"))
    code, report, _ = _run(tmp_path, after)
    move = next(m for m in report["moves"] if m["from"] == "Engine.describe_layout")
    assert (code, move["verdict"], "path_verdict" in move) == (0, "equivalent", False)
    assert [e["what"].split(":")[0] for e in move["other_edits"]] == ["default added"]


LAMBDA_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/stage.py": '''\
class Stage:
    def __init__(self, scale):
        self.scale = scale
        self.setup()

    def setup(self):
        self.feature = lambda x: x * 2 + 1
        if self.scale > 1:
            self.feature = lambda x: x * 3
'''}
LAMBDA_AFTER = {**LAMBDA_BEFORE, "sglang/srt/stage.py": '''\
from sglang.srt.features import make_features


class Stage:
    def __init__(self, scale):
        self.scale = scale
        self.setup()

    def setup(self):
        make_features(self)
''', "sglang/srt/features.py": '''\
def make_features(stage):
    stage.feature = lambda x: x * 2 + 1
    if stage.scale > 1:
        stage.feature = lambda x: x * 3
'''}


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_function_the_moved_code_makes_is_compared_by_its_code_not_where_it_was_defined(tmp_path):
    before, after = _tree(tmp_path / "b", LAMBDA_BEFORE), _tree(tmp_path / "a", LAMBDA_AFTER)
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 0
    assert [m["verdict"] for m in json.loads(out.read_text())["moves"]] == ["equivalent"]
    features = after / "sglang/srt/features.py"
    features.write_text(features.read_text().replace("x * 3", "x * 4"))  # another lambda: told apart
    assert main([str(before), str(after), "--json", str(out)]) == 1


HOOK_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/engine.py": '''\
class Engine:
    def __init__(self, draft_page_size):
        self.draft_page_size = draft_page_size

    def padded(self, n):
        if n % self.draft_page_size:
            return n + self.draft_page_size - n % self.draft_page_size
        return n
''', "sglang/srt/pipeline.py": '''\
def plan(engine, n):
    return engine.padded(n)
'''}
HOOK_AFTER = {**HOOK_BEFORE, "sglang/srt/engine.py": '''\
class Engine:
    def __init__(self, draft_page_size):
        self.draft_page_size = draft_page_size
''', "sglang/srt/paging.py": '''\
def padded(n, page_size):
    if n % page_size:
        return n + page_size - n % page_size
    return n
''', "sglang/srt/pipeline.py": '''\
from sglang.srt.paging import padded


def plan(engine, n):
    return padded(n, engine.draft_page_size)
'''}


def test_a_hook_s_parameter_named_as_the_end_of_an_attribute_is_passed_that_attribute(tmp_path):
    before, after = _tree(tmp_path / "b", HOOK_BEFORE), _tree(tmp_path / "a", HOOK_AFTER)
    out = tmp_path / "r.json"
    code = main([str(before), str(after), "--json", str(out)])
    (move,) = json.loads(out.read_text())["moves"]
    assert (code, move["verdict"]) == (0, "equivalent")
    assert "n=n, page_size=self.draft_page_size" in move["why"]


def test_a_value_parameter_left_over_is_not_taken_for_the_instance(tmp_path):
    after = {**HOOK_AFTER, "sglang/srt/paging.py": HOOK_AFTER["sglang/srt/paging.py"].replace("page_size", "step")}
    before, after = _tree(tmp_path / "b", HOOK_BEFORE), _tree(tmp_path / "a", after)
    out = tmp_path / "r.json"
    # named after nothing the old body read, `step` is read where it read `self.draft_page_size`
    assert main([str(before), str(after), "--json", str(out)]) == 0
    (move,) = json.loads(out.read_text())["moves"]
    assert move["verdict"] == "equivalent" and "n=n, step=self.draft_page_size" in move["why"]


SITES_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/meter.py": '''\
class Meter:
    def __init__(self, scale):
        self.scale = scale

    def small(self, n):
        return self._scaled(n)

    def large(self):
        value = self._scaled(100) + 1
        if value % 2:
            value += self.scale
        return value

    def _scaled(self, n):
        if n > 10:
            scaled = n * self.scale
            if scaled > 1000:
                raise ValueError(f"too large: {scaled}")
            return scaled
        return n
'''}
SITES_AFTER = {**SITES_BEFORE, "sglang/srt/meter.py": '''\
from sglang.srt.scaling import large_of, scaled


class Meter:
    def __init__(self, scale):
        self.scale = scale

    def small(self, n):
        return scaled(n, self.scale)

    def report(self):
        return large_of(self)
''', "sglang/srt/scaling.py": '''\
def scaled(n, scale):
    if n > 10:
        scaled = n * scale
        if scaled > 1000:
            raise ValueError(f"too large: {scaled}")
        return scaled
    return n


def large_of(meter):
    value = scaled(100, meter.scale) + 1
    if value % 2:
        value += meter.scale
    return value
'''}


def test_a_call_site_that_left_with_its_method_does_not_leave_the_move_unproven(tmp_path):
    # Meter._scaled -> scaled (callers rewritten); its caller Meter.large left the class too
    before, after = _tree(tmp_path / "b", SITES_BEFORE), _tree(tmp_path / "a", SITES_AFTER)
    out = tmp_path / "r.json"
    main([str(before), str(after), "--json", str(out)])
    verdicts = {m["from"]: m["verdict"] for m in json.loads(out.read_text())["moves"]}
    assert verdicts["Meter._scaled"] == "equivalent", verdicts


WRAPPED_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/tally.py": '''\
class Tally:
    def __init__(self, cap):
        self.cap = cap

    def total(self, xs):
        return self._capped_sum(xs)

    def _capped_sum(self, xs):
        s = 0
        for x in xs:
            if x > self.cap:
                raise ValueError(f"{x} is over {self.cap}")
            s += x
        return s
'''}
WRAPPED_AFTER = {**WRAPPED_BEFORE, "sglang/srt/tally.py": '''\
from sglang.srt.summing import capped_sum


class Tally:
    def __init__(self, cap):
        self.cap = cap

    def total(self, xs):
        return capped_sum(xs, self.cap)
''', "sglang/srt/summing.py": '''\
import functools


def logged(f):
    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)
    return inner


@logged
def capped_sum(xs, cap):
    s = 0
    for x in xs:
        if x > cap:
            raise ValueError(f"{x} is over {cap}")
        s += x
    return s
'''}


def test_a_function_under_a_wrapping_decorator_is_measured_through_it(tmp_path):
    before, after = _tree(tmp_path / "b", WRAPPED_BEFORE), _tree(tmp_path / "a", WRAPPED_AFTER)
    out = tmp_path / "r.json"
    code = main([str(before), str(after), "--json", str(out)])
    (move,) = json.loads(out.read_text())["moves"]
    assert (code, move["verdict"]) == (0, "equivalent"), move


def test_a_component_class_a_package_re_exports_is_found_where_it_is_defined(tmp_path):
    after = tmp_path / "after"
    shutil.copytree(MOVES / "after_component", after)
    srt = after / "sglang/srt"
    (srt / "stats").mkdir()
    (srt / "stats.py").rename(srt / "stats" / "recorder.py")
    (srt / "stats" / "__init__.py").write_text("from sglang.srt.stats.recorder import StatsRecorder\n")
    code, report, _ = _run(tmp_path, after)
    assert (code, report["verdict"]) == (0, "equivalent"), report["moves"]


VIEW_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/args.py": '''\
class Args:
    def __init__(self, cert, key):
        self.cert = cert
        self.key = key

    def validate(self):
        if self.key and not self.cert:
            raise ValueError("a key needs a certificate")
        if self.cert and not self.key:
            raise ValueError("a certificate needs a key")
        return bool(self.cert)
''', "sglang/srt/setup.py": '''\
def setup(args):
    return args.validate()
'''}
VIEW_AFTER = {**VIEW_BEFORE, "sglang/srt/args.py": '''\
class Args:
    def __init__(self, cert, key):
        self.cert = cert
        self.key = key
''', "sglang/srt/views.py": '''\
class View:
    def __init__(self, args):
        self._args = args

    def __getattr__(self, name):
        return getattr(self._args, name)


def view_of(args):
    return View(args)
''', "sglang/srt/tls_hook.py": '''\
from sglang.srt.views import view_of


def validate_tls(args):
    cfg = view_of(args)
    if cfg.key and not cfg.cert:
        raise ValueError("a key needs a certificate")
    if cfg.cert and not cfg.key:
        raise ValueError("a certificate needs a key")
    return bool(cfg.cert)
''', "sglang/srt/setup.py": '''\
from sglang.srt.tls_hook import validate_tls


def setup(args):
    return validate_tls(args)
'''}


def test_reads_through_a_view_the_check_does_not_run_leave_the_move_equivalent_and_the_edit_unproven(tmp_path):
    # a hook reading the instance through a view of another module (stubbed): the move is judged
    # with the view put back to the instance; what the view gives is said not proven, never a divergence
    before, after = _tree(tmp_path / "b", VIEW_BEFORE), _tree(tmp_path / "a", VIEW_AFTER)
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    code = main([str(before), str(after), "--json", str(out), "--markdown", str(md)])
    (move,) = json.loads(out.read_text())["moves"]
    assert (code, move["verdict"], move["path_verdict"]) == (2, "equivalent", "inconclusive")
    (view,) = [e for e in move["other_edits"] if e["what"].startswith("fields read through a view")]
    assert view["changes_behaviour"] is None and "`view_of(args)`" in view["why"]
    assert (view["file"], view["line"]) == ("sglang/srt/tls_hook.py", 5)
    assert "1 other edit on their way not proven." in md.read_text()
    # an edit of the moved body besides the view is still told apart
    hook = after / "sglang/srt/tls_hook.py"
    hook.write_text(hook.read_text().replace("return bool(cfg.cert)", "return not cfg.cert"))
    code = main([str(before), str(after), "--json", str(out), "--markdown", str(md)])
    (move,) = json.loads(out.read_text())["moves"]
    assert (code, move["verdict"]) == (1, "divergent")
    assert "the versions return different values" in md.read_text().split("### What changes behaviour")[1] \
        .split("###")[0]  # the move's own difference, not the view's stub


RANDOM_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/layer.py": '''\
import torch


class Layer:
    def __init__(self, width):
        self.width = width
        self.init_weights()

    def init_weights(self):
        self.weights = torch.rand(self.width) * 2 - 1
        if self.width > 2:
            self.weights[0] = 0.0
'''}
RANDOM_AFTER = {**RANDOM_BEFORE, "sglang/srt/layer.py": '''\
from sglang.srt.init import init_weights


class Layer:
    def __init__(self, width):
        self.width = width
        self.init_weights()

    def init_weights(self):
        init_weights(self, self.width)
''', "sglang/srt/init.py": '''\
import torch


def init_weights(layer, width):
    layer.weights = torch.rand(width) * 2 - 1
    if width > 2:
        layer.weights[0] = 0.0
'''}


def test_random_draws_are_the_same_in_both_versions(tmp_path):
    # weights drawn at random by torch (run for real): every run starts from one seed, so a
    # difference is the code's
    before, after = _tree(tmp_path / "b", RANDOM_BEFORE), _tree(tmp_path / "a", RANDOM_AFTER)
    out = tmp_path / "r.json"
    code = main([str(before), str(after), "--json", str(out)])
    (move,) = json.loads(out.read_text())["moves"]
    assert (code, move["verdict"]) == (0, "equivalent"), move
    init = after / "sglang/srt/init.py"
    init.write_text(init.read_text().replace("* 2 - 1", "* 2 - 0.5"))
    assert main([str(before), str(after), "--json", str(out)]) == 1


def test_a_call_site_moved_to_another_method_of_the_class_is_compared_not_counted_missing(tmp_path):
    # Meter.small no longer calls _scaled: Meter.prepare (in both versions) now does
    before = {**SITES_BEFORE, "sglang/srt/meter.py": SITES_BEFORE["sglang/srt/meter.py"].replace(
        "    def large(self):", "    def prepare(self, n):\n        return n\n\n    def large(self):")}
    after = {**SITES_AFTER, "sglang/srt/meter.py": SITES_AFTER["sglang/srt/meter.py"].replace(
        "    def small(self, n):\n        return scaled(n, self.scale)\n",
        "    def small(self, n):\n        return n\n\n    def prepare(self, n):\n        return scaled(n, self.scale)\n")}
    before, after = _tree(tmp_path / "b", before), _tree(tmp_path / "a", after)
    out = tmp_path / "r.json"
    main([str(before), str(after), "--json", str(out)])
    move = next(m for m in json.loads(out.read_text())["moves"] if m["from"] == "Meter._scaled")
    assert "call site moved: from Meter.small to Meter.prepare" in [e["what"] for e in move["other_edits"]]
    static = next(c for c in json.loads(out.read_text())["checks"] if c["moves"] == ["Meter._scaled"])
    residuals = static["report"]["pairs"][0]["static"]["residuals"]
    assert [r for r in residuals if r["kind"] == "call-site"] == []


def test_jobs_below_one_is_a_usage_error(tmp_path, capsys):
    assert main([str(tmp_path), str(tmp_path), "--jobs", "0"]) == 2
    assert "--jobs 0: check at least one move at a time" in capsys.readouterr().err


def test_moves_checked_one_at_a_time_or_together_give_the_same_report(tmp_path):
    before, after = _tree(tmp_path / "b", RANDOM_BEFORE), _tree(tmp_path / "a", RANDOM_AFTER)
    reports = []
    for jobs in ("1", "2"):
        out = tmp_path / f"r{jobs}.json"
        main([str(before), str(after), "--json", str(out), "--jobs", jobs])
        reports.append(json.loads(out.read_text()))
    assert reports[0] == reports[1] and reports[0]["moves"]


REPORTER_BEFORE = '''\
def report(engine, name):
    engine.record(name, 1)
    return engine.summary()
'''
REPORTER_AFTER = '''\
def report(engine, name):
    engine.stats_recorder.record(name, 2)
    return engine.stats_recorder.summary()
'''


def test_calls_from_outside_the_class_rewired_to_the_component_are_other_edits(tmp_path):
    # another module called the moved methods on an Engine; it now calls them on its component:
    # each call paired within its function, same arguments or not said
    before, after = tmp_path / "before", tmp_path / "after"
    shutil.copytree(BEFORE, before)
    shutil.copytree(MOVES / "after_component", after)
    (before / "sglang/srt/reporter.py").write_text(REPORTER_BEFORE)
    (after / "sglang/srt/reporter.py").write_text(REPORTER_AFTER)
    edits = {m.source: [e.what for e in m.call_edits] for m in find_moves(before, after)}
    assert edits["Engine.summary"] == ["call outside the class rewired in report, same arguments: "
                                       "`engine.summary()` -> `engine.stats_recorder.summary()`"]
    assert edits["Engine.record"] == ["call outside the class rewired in report, arguments changed: "
                                      "`engine.record(name, 1)` -> `engine.stats_recorder.record(name, 2)`"]
    (after / "sglang/srt/reporter.py").write_text(REPORTER_AFTER.replace("engine.stats_recorder.summary()",
                                                                        "other.stats_recorder.summary()"))
    edits = {m.source: [e.what for e in m.call_edits] for m in find_moves(before, after)}
    assert edits["Engine.summary"] == []  # another receiver: nothing says it is the same call


def test_a_component_group_s_difference_is_told_to_the_move_it_concerns_when_the_class_moved_file(tmp_path):
    # the owner moved to another file along with the extraction, and one moved method reads a
    # module global that did not exist before: that move is divergent; the other, whose body is
    # the old one modulo the map, is equivalent, and the group's check names where the difference is
    after = tmp_path / "after"
    shutil.copytree(MOVES / "after_component", after)
    srt = after / "sglang" / "srt"
    (srt / "serving").mkdir()
    (srt / "serving" / "__init__.py").write_text("")
    (srt / "engine.py").rename(srt / "serving" / "engine.py")
    stats = srt / "stats.py"
    stats.write_text("KEEP = 2\n\n\n" + stats.read_text().replace("if len(counts) > 1:", "if len(counts) > KEEP - 1:"))
    assert {m.source: m.owner for m in find_moves(BEFORE, after)} == {
        "Engine.record": ("sglang/srt/serving/engine.py", "Engine"),
        "Engine.summary": ("sglang/srt/serving/engine.py", "Engine")}
    code, report, md = _run(tmp_path, after)
    assert (code, report["verdict"]) == (1, "divergent")
    moves = {m["from"]: m for m in report["moves"]}
    assert moves["Engine.record"]["verdict"] == "divergent"
    assert "reads the module global `KEEP`" in moves["Engine.record"]["verdict_line"]
    assert moves["Engine.summary"]["verdict"] == "equivalent"
    assert "the group's differences are in `record`" in moves["Engine.summary"]["verdict_line"]
    assert [e["what"] for e in moves["Engine.summary"]["other_edits"]] == []
    assert any("`KEEP`" in e["what"] and e["file"] == "sglang/srt/stats.py" and e["line"] == 1
               for e in moves["Engine.record"]["other_edits"])


def test_an_async_method_moved_into_a_component_is_run_to_its_end(tmp_path):
    # an async method's call gives a coroutine: the check runs it to its end and compares what it
    # returns (comparing the coroutines would find any two bodies alike)
    def asynced(root: Path, rel: str, old: str = "", new: str = "") -> Path:
        path = root / rel
        path.write_text(path.read_text().replace("    def summary(self):", "    async def summary(self):")
                        .replace(old, new))
        return root

    before = asynced(shutil.copytree(BEFORE, tmp_path / "before"), "sglang/srt/engine.py")
    after = asynced(shutil.copytree(MOVES / "after_component", tmp_path / "after"), "sglang/srt/stats.py")
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert {m["from"]: m["verdict"] for m in report["moves"]} == {"Engine.record": "equivalent",
                                                                  "Engine.summary": "equivalent"}
    edited = asynced(shutil.copytree(MOVES / "after_component", tmp_path / "edited"), "sglang/srt/stats.py",
                     "sum(values) / len(values)", "max(values)")
    assert main([str(before), str(edited), "--json", str(out)]) == 1
    assert {m["from"]: m["verdict"] for m in json.loads(out.read_text())["moves"]}["Engine.summary"] == "divergent"


WRITER_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/server_config.py": '''\
class ServerConfig:
    def __init__(self, page_size):
        self.page_size = page_size
        self.apply_limits()

    def apply_limits(self, limit=None, floor=1):
        if limit is None:
            return
        if limit < floor:
            raise ValueError(f"limit {limit} is under {floor}")
        self.page_size = limit
        self.limited = True
''', "sglang/srt/pipeline.py": "def run(config):\n    return config\n"}
WRITER_AFTER = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/server_config.py": '''\
class ServerConfig:
    def __init__(self, page_size):
        self.page_size = page_size
''', "sglang/srt/env_hook.py": '''\
def declare(target, **values):
    for name, value in values.items():
        setattr(target, name, value)


def apply_limits(server_config, limit=None, floor=1):
    if limit is None:
        return
    if limit < floor:
        raise ValueError(f"limit {limit} is under {floor}")
    declare(server_config, page_size=limit, limited=True)
''', "sglang/srt/pipeline.py": '''\
from sglang.srt.env_hook import apply_limits


def run(config):
    apply_limits(config)
    return config
'''}


def test_a_hook_s_parameter_named_for_the_class_stands_for_the_instance_it_only_passes_on(tmp_path):
    # the function never reads an attribute of `server_config` (it hands it to `declare`), and the
    # old body only wrote to self: the parameter named for the class is the instance
    before, after = _tree(tmp_path / "b", WRITER_BEFORE), _tree(tmp_path / "a", WRITER_AFTER)
    out = tmp_path / "r.json"
    # checked (was: could not run, "stands for nothing"); the two writes turned into one call are
    # residual lines the runs ran alike but do not prove line by line: inconclusive, said why
    assert main([str(before), str(after), "--json", str(out)]) == 2
    (move,) = json.loads(out.read_text())["moves"]
    assert (move["from"], move["verdict"]) == ("ServerConfig.apply_limits", "inconclusive")
    assert "no configuration told the versions apart" in move["why"]
    assert "server_config=self" in move["why"]
    assert any("new `declare`" in e["what"] for e in move["other_edits"])
    edited = {**WRITER_AFTER, "sglang/srt/env_hook.py": WRITER_AFTER["sglang/srt/env_hook.py"].replace(
        "setattr(target, name, value)", "setattr(target, name, value + 1)")}  # the new function's code is run
    assert main([str(before), str(_tree(tmp_path / "e", edited)), "--json", str(out)]) == 1


def test_in_a_group_left_unproven_a_move_whose_body_ran_through_is_equivalent(tmp_path):
    # `record` keeps a branch no input takes (the group is inconclusive); `summary`'s body is the
    # old one and ran through in both versions: equivalent on its own, `record` keeps the reason
    def unreachable(root: Path, rel: str) -> Path:
        path = root / rel
        path.write_text(path.read_text().replace("        counts.append(value)\n",
                                                 "        counts.append(value)\n        if id(counts) == 0:\n"
                                                 "            counts.clear()\n"))
        return root

    before = unreachable(shutil.copytree(BEFORE, tmp_path / "before"), "sglang/srt/engine.py")
    after = unreachable(shutil.copytree(MOVES / "after_component", tmp_path / "after"), "sglang/srt/stats.py")
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 2
    moves = {m["from"]: m for m in json.loads(out.read_text())["moves"]}
    assert moves["Engine.summary"]["verdict"] == "equivalent"
    assert "reached every branch of it" in moves["Engine.summary"]["verdict_line"]
    assert moves["Engine.record"]["verdict"] == "inconclusive" and "never run" in moves["Engine.record"]["why"]


OC_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/engine.py": '''\
class Engine:
    def __init__(self, limit):
        self.limit = limit

    def run(self, items):
        return self.pack(items)

    def pack(self, items):
        batch, size = [], 0
        for item in items:
            if size + len(item) > self.limit:
                break
            batch.append(item)
            size += len(item)
        return batch, size
'''}
OC_AFTER = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/engine.py": '''\
from sglang.srt.batching import Batcher


class Engine:
    def __init__(self, limit):
        self.limit = limit

    def run(self, items):
        return Batcher(self.limit).pack(items)
''', "sglang/srt/batching.py": '''\
class Batcher:
    def __init__(self, limit):
        self.limit = limit

    def pack(self, items):
        batch, size = [], 0
        for item in items:
            if size + len(item) > self.limit:
                break
            batch.append(item)
            size += len(item)
        return batch, size
'''}


def test_a_method_moved_into_a_class_the_owner_does_not_hold_is_checked_on_the_same_state(tmp_path):
    # Engine.pack -> Batcher.pack (Engine builds a Batcher where it needs one, holds none): each
    # version's method called on an instance of its own class, self's attributes alike
    before, after = _tree(tmp_path / "b", OC_BEFORE), _tree(tmp_path / "a", OC_AFTER)
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 0
    (move,) = json.loads(out.read_text())["moves"]
    assert (move["kind"], move["verdict"]) == ("other class", "equivalent")
    assert "checked as a method of Batcher" in move["why"]
    edited = {**OC_AFTER, "sglang/srt/batching.py": OC_AFTER["sglang/srt/batching.py"].replace("> self.limit", ">= self.limit")}
    assert main([str(before), str(_tree(tmp_path / "e", edited)), "--json", str(out)]) == 1


PARTS_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/reporter.py": '''\
def redact(parts):
    return parts[:2]


class Reporter:
    def __init__(self, name: str, size: int, secret: str):
        self.name = name
        self.size = size
        self.secret = secret

    def info(self):
        parts = [self.name, str(self.size)]
        if self.secret:
            parts.append(self.secret)
        return "/".join(parts)
'''}
PARTS_AFTER = {**PARTS_BEFORE, "sglang/srt/reporter.py": '''\
from sglang.srt.parts import build_parts


def redact(parts):
    return parts[:2]


class Reporter:
    def __init__(self, name: str, size: int, secret: str):
        self.name = name
        self.size = size
        self.secret = secret

    def info(self):
        return "/".join(build_parts(self.name, self.size, self.secret))
''', "sglang/srt/parts.py": '''\
def build_parts(name, size, secret):
    parts = [name, str(size)]
    if secret:
        parts.append(secret)
    return parts
'''}


def test_a_body_moved_but_its_last_step_kept_by_the_caller_is_equivalent(tmp_path):
    # the old method's `return "/".join(parts)` is now the function's `return parts` and the
    # caller's `return "/".join(build_parts(...))`: the static check reads them as one
    before, after = _tree(tmp_path / "b", PARTS_BEFORE), _tree(tmp_path / "a", PARTS_AFTER)
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 0
    (check,) = json.loads(out.read_text())["checks"]
    assert check["report"]["pairs"][0]["static"]["residuals"] == []


def test_a_call_wrapping_the_function_s_result_is_an_edit_apart_from_the_move(tmp_path):
    wrapped = {**PARTS_AFTER, "sglang/srt/reporter.py": PARTS_AFTER["sglang/srt/reporter.py"].replace(
        '"/".join(build_parts(self.name, self.size, self.secret))',
        '"/".join(redact(build_parts(self.name, self.size, self.secret)))')}
    before, after = _tree(tmp_path / "b", PARTS_BEFORE), _tree(tmp_path / "a", wrapped)
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    assert main([str(before), str(after), "--json", str(out), "--markdown", str(md)]) == 1
    (move,) = json.loads(out.read_text())["moves"]
    assert (move["verdict"], move["path_verdict"]) == ("equivalent", "divergent")
    assert move["verdict_line"] == "the move is equivalent; 1 other edit on its path changes behaviour"
    (edit,) = move["other_edits"]  # the caller's line is not listed again as a changed line
    assert (edit["file"], edit["line"], edit["changes_behaviour"]) == ("sglang/srt/reporter.py", 15, True)
    assert "result wrapped at the call site: `redact(…)`" in edit["what"]
    # a wrapping call the old body made too is no edit: the move itself is then what differs
    same_call = {**PARTS_BEFORE, "sglang/srt/reporter.py": PARTS_BEFORE["sglang/srt/reporter.py"].replace(
        'return "/".join(parts)', 'return "/".join(redact(parts))')}
    before = _tree(tmp_path / "b2", same_call)
    assert main([str(before), str(after), "--json", str(out)]) == 0
    (move,) = json.loads(out.read_text())["moves"]
    assert move["verdict"] == "equivalent" and not move.get("other_edits")


def test_a_local_s_annotation_dropped_on_the_way_is_no_difference(tmp_path):
    # `parts: list = [...]` in the method, `parts = [...]` in the function: a local's annotation
    # is never evaluated; the same line with another value stays a difference
    annotated = {**PARTS_BEFORE, "sglang/srt/reporter.py": PARTS_BEFORE["sglang/srt/reporter.py"].replace(
        "parts = [self.name, str(self.size)]", "parts: list = [self.name, str(self.size)]")}
    before, after = _tree(tmp_path / "b", annotated), _tree(tmp_path / "a", PARTS_AFTER)
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 0
    (check,) = json.loads(out.read_text())["checks"]
    assert check["report"]["pairs"][0]["static"]["residuals"] == []
    parts = after / "sglang/srt/parts.py"
    parts.write_text(parts.read_text().replace("parts = [name, str(size)]", "parts = [str(size), name]"))
    main([str(before), str(after), "--json", str(out)])
    (check,) = json.loads(out.read_text())["checks"]
    assert [r["kind"] for r in check["report"]["pairs"][0]["static"]["residuals"]] == ["changed"]


def test_a_move_alone_left_unproven_says_why_from_its_own_check(tmp_path):
    # the wrapping edit changes behaviour (the whole path diverges); the move alone has a line
    # that differs and that no configuration tells apart: that is the reason given
    wrapped = {**PARTS_AFTER, "sglang/srt/reporter.py": PARTS_AFTER["sglang/srt/reporter.py"].replace(
        '"/".join(build_parts(self.name, self.size, self.secret))',
        '"/".join(redact(build_parts(self.name, self.size, self.secret)))'),
        "sglang/srt/parts.py": PARTS_AFTER["sglang/srt/parts.py"].replace(
            "parts = [name, str(size)]", "parts = list([name, str(size)])")}
    before, after = _tree(tmp_path / "b", PARTS_BEFORE), _tree(tmp_path / "a", wrapped)
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 1
    (move,) = json.loads(out.read_text())["moves"]
    assert (move["verdict"], move["path_verdict"]) == ("inconclusive", "divergent")
    assert move["why"].startswith("a line of the moved body differs and no configuration told the versions apart")


MEMO_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/rope.py": '''\
import functools
import os


@functools.lru_cache(maxsize=None)
def _mode():
    return os.environ.get("ROPE_MODE", "plain")


class Rope:
    def __init__(self, base):
        self.base = base

    def total(self, n):
        return sum(self.shard(n))

    @functools.lru_cache(maxsize=8)
    def shard(self, n):
        step = 1 if n > 0 else -1
        start = self.base * 2 if _mode() == "scaled" else self.base
        out = [start + i * step for i in range(abs(n))]
        return out
'''}
MEMO_AFTER = {**MEMO_BEFORE, "sglang/srt/rope.py": '''\
import functools

from sglang.srt.rope_utils import rope_shard


class Rope:
    def __init__(self, base):
        self.base = base

    def total(self, n):
        return sum(self.shard(n))

    @functools.lru_cache(maxsize=8)
    def shard(self, n):
        return rope_shard(self.base, n)
''', "sglang/srt/rope_utils.py": '''\
import functools
import os


@functools.lru_cache(maxsize=None)
def _mode():
    return os.environ.get("ROPE_MODE", "plain")


def rope_shard(base, n):
    step = 1 if n > 0 else -1
    start = base * 2 if _mode() == "scaled" else base
    out = [start + i * step for i in range(abs(n))]
    return out
'''}


def test_a_memoised_method_is_checked_and_no_memo_outlives_a_configuration(tmp_path):
    # `@lru_cache` wraps the method (the file's function is found through __wrapped__), and the
    # modules' memoised `_mode()` is emptied before each run: a value the world gave one
    # configuration never answers the next, so both of its branches run
    before, after = _tree(tmp_path / "b", MEMO_BEFORE), _tree(tmp_path / "a", MEMO_AFTER)
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    (move,) = report["moves"]
    assert (move["from"], move["verdict"]) == ("Rope.shard", "equivalent")
    coverage = report["checks"][0]["report"]["pairs"][0]["coverage"]
    assert coverage["after"]["hit"] == coverage["after"]["branches"] > 0


def test_a_component_an_owner_method_builds_and_returns_is_proven_through_the_owner(tmp_path):
    # `self.stats_recorder = self._make_recorder()`: the component is the class the method
    # returns, and the method runs for real
    after = _edited(tmp_path, "after_component", "sglang/srt/engine.py",
                    "        self.stats_recorder = StatsRecorder()\n",
                    "        self.stats_recorder = self._make_recorder()\n\n"
                    "    def _make_recorder(self):\n"
                    "        return StatsRecorder()\n")
    code, report, _ = _run(tmp_path, after)
    assert {m["from"]: m["verdict"] for m in report["moves"]} == {"Engine.record": "equivalent",
                                                                  "Engine.summary": "equivalent"}
    stats = after / "sglang/srt/stats.py"  # and an edit inside it is still told
    stats.write_text(stats.read_text().replace("if len(counts) > 1:", "if len(counts) > 2:"))
    code, report, _ = _run(tmp_path, after)
    assert (code, report["verdict"]) == (1, "divergent")


def test_a_renamed_method_whose_guarded_wrapper_the_owner_kept_is_called_through_it(tmp_path):
    # `record` became the component's `add`; the owner keeps `record`, guarding against a missing
    # component as its callers rely on: the after version is called through that wrapper
    after = _edited(tmp_path, "after_component", "sglang/srt/engine.py",
                    "        self.stats_recorder.record(name, value)\n",
                    "        self.record(name, value)\n\n"
                    "    def record(self, name, value):\n"
                    "        if self.stats_recorder is None:\n"
                    "            return\n"
                    "        self.stats_recorder.add(name, value)\n")
    stats = after / "sglang/srt/stats.py"
    stats.write_text(stats.read_text().replace("def record(self, name, value):", "def add(self, name, value):"))
    code, report, _ = _run(tmp_path, after)
    moves = {m["from"]: m for m in report["moves"]}
    assert {name: (m["to"], m["verdict"]) for name, m in moves.items()} == {
        "Engine.record": ("Engine.stats_recorder.add", "inconclusive"),
        "Engine.summary": ("Engine.stats_recorder.summary", "equivalent")}
    # through the wrapper, its guard is the one branch no configuration takes (the owner always
    # builds its component): said, not taken for a proof
    assert "1 of " in moves["Engine.record"]["why"] and "never run" in moves["Engine.record"]["why"]


def test_configurations_where_the_owner_holds_no_component_are_said_not_modelled(tmp_path):
    # the builder returns None on a path (callers guard against it): those configurations are not
    # what the check runs; said, never a harness failure
    after = _edited(tmp_path, "after_component", "sglang/srt/engine.py",
                    "        self.stats_recorder = StatsRecorder()\n",
                    "        self.stats_recorder = self._make_recorder()\n\n"
                    "    def _make_recorder(self):\n"
                    "        if self.page_size is None:\n"
                    "            return None\n"
                    "        return StatsRecorder()\n")
    code, report, _ = _run(tmp_path, after)
    moves = {m["from"]: m for m in report["moves"]}
    assert {name: m["verdict"] for name, m in moves.items()} == {"Engine.record": "inconclusive",
                                                                  "Engine.summary": "inconclusive"}
    assert "the owner holds None where its component would be" in moves["Engine.record"]["why"]


def test_a_move_the_group_leaves_unproven_says_why_in_its_own_words(tmp_path):
    # `record` diverges; `summary`'s body changed where no configuration tells the versions apart:
    # its reason is its own, in `why` as in its verdict line
    after = _edited(tmp_path, "after_component", "sglang/srt/stats.py", "if len(counts) > 1:", "if len(counts) > 2:")
    stats = after / "sglang/srt/stats.py"
    stats.write_text(stats.read_text().replace("for name, values in self.stats.items() if values}",
                                               "for name, values in self.stats.items() if len(values)}"))
    code, report, _ = _run(tmp_path, after)
    moves = {m["from"]: m for m in report["moves"]}
    assert (code, moves["Engine.record"]["verdict"], moves["Engine.summary"]["verdict"]) == (1, "divergent", "inconclusive")
    assert moves["Engine.summary"]["why"].startswith("its body changed (1 edit below) and no configuration showed")


PULLED_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/senders.py": '''\
class BaseSender:
    def __init__(self, room):
        self.room = room


class FastSender(BaseSender):
    def __init__(self, room, limit):
        super().__init__(room)
        self.limit = limit

    def poll(self, ready):
        if not ready:
            return "waiting"
        if len(ready) > self.limit:
            return "overflow"
        return f"sent {len(ready)} to {self.room}"
'''}
PULLED_AFTER = {**PULLED_BEFORE, "sglang/srt/senders.py": '''\
class BaseSender:
    def __init__(self, room):
        self.room = room

    def poll(self, ready):
        if not ready:
            return "waiting"
        if len(ready) > self.limit:
            return "overflow"
        return f"sent {len(ready)} to {self.room}"


class FastSender(BaseSender):
    def __init__(self, room, limit):
        super().__init__(room)
        self.limit = limit
'''}


def test_a_method_pulled_up_into_its_base_is_checked_on_the_same_state(tmp_path):
    before, after = _tree(tmp_path / "b", PULLED_BEFORE), _tree(tmp_path / "a", PULLED_AFTER)
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 0
    (move,) = json.loads(out.read_text())["moves"]
    assert (move["kind"], move["from"], move["to"], move["verdict"]) == (
        "superclass", "FastSender.poll", "sglang.srt.senders.BaseSender.poll", "equivalent")
    senders = after / "sglang/srt/senders.py"
    senders.write_text(senders.read_text().replace("> self.limit", ">= self.limit"))
    assert main([str(before), str(after), "--json", str(out)]) == 1


CO_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/args.py": '''\
class Args:
    def __init__(self, path, size):
        self.path = path
        self.size = size

    def model_config(self):
        if self.path is None:
            raise ValueError("no path")
        return {"path": self.path, "layers": 2}

    def adjust(self):
        config = self.model_config()
        if config["layers"] > 1 and self.size:
            self.size = self.size * config["layers"]
        return self.size
'''}
CO_AFTER = {**CO_BEFORE, "sglang/srt/args.py": '''\
class Args:
    def __init__(self, path, size):
        self.path = path
        self.size = size
''', "sglang/srt/config_of.py": '''\
def model_config_of(args):
    if args.path is None:
        raise ValueError("no path")
    return {"path": args.path, "layers": 2}
''', "sglang/srt/hooks.py": '''\
from sglang.srt.config_of import model_config_of


def adjust(args):
    config = model_config_of(args)
    if config["layers"] > 1 and args.size:
        args.size = args.size * config["layers"]
    return args.size
'''}


def test_a_call_of_a_method_that_moved_too_is_one_call_each_move_judged_in_its_own_row(tmp_path):
    # `adjust` calls `self.model_config()`, which moved too (to `model_config_of` in another
    # module): the two calls are one, given one answer, and said so; what `model_config_of` does
    # is judged in its own row, and an edit in `adjust` itself is still seen
    before, after = _tree(tmp_path / "b", CO_BEFORE), _tree(tmp_path / "a", CO_AFTER)
    out, md = tmp_path / "r.json", tmp_path / "r.md"

    def verdicts():
        main([str(before), str(after), "--json", str(out), "--markdown", str(md)])
        return {m["from"]: (m["verdict"], m.get("one_call_with")) for m in json.loads(out.read_text())["moves"]}

    assert verdicts() == {"Args.model_config": ("equivalent", None),
                          "Args.adjust": ("equivalent", ["Args.model_config"])}
    assert "- `Args.adjust`: `self.model_config(…)` before and `sglang.srt.config_of.model_config_of(…)` after" \
        in md.read_text().splitlines()
    config_of = after / "sglang/srt/config_of.py"
    config_of.write_text(config_of.read_text().replace('"layers": 2', '"layers": 3'))
    assert verdicts() == {"Args.model_config": ("divergent", None),
                          "Args.adjust": ("equivalent", ["Args.model_config"])}
    hooks = after / "sglang/srt/hooks.py"
    hooks.write_text(hooks.read_text().replace('config["layers"] > 1', 'config["layers"] > 2'))
    assert verdicts()["Args.adjust"] == ("divergent", ["Args.model_config"])


def test_a_call_of_a_method_that_moved_too_imported_in_the_function_is_one_call(tmp_path):
    local = {**CO_AFTER, "sglang/srt/hooks.py": CO_AFTER["sglang/srt/hooks.py"].replace(
        "from sglang.srt.config_of import model_config_of\n\n\n", "").replace(
        "    config = model_config_of(args)", "    from sglang.srt.config_of import model_config_of\n\n"
                                           "    config = model_config_of(args)")}
    before, after = _tree(tmp_path / "b", CO_BEFORE), _tree(tmp_path / "a", local)
    out = tmp_path / "r.json"
    main([str(before), str(after), "--json", str(out)])
    moves = {m["from"]: m["verdict"] for m in json.loads(out.read_text())["moves"]}
    assert moves == {"Args.model_config": "equivalent", "Args.adjust": "equivalent"}


DECLARED_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/limits.py": '''\
class Limits:
    def __init__(self, size, cap):
        self.size = size
        self.cap = cap
        self.clamp()

    def clamp(self):
        if self.cap is None:
            return
        if self.size > self.cap:
            self.size = self.cap
            self.clamped = True
'''}
DECLARED_AFTER = {**DECLARED_BEFORE, "sglang/srt/limits.py": '''\
from sglang.srt.limits_hook import clamp_limits


class Limits:
    def __init__(self, size, cap):
        self.size = size
        self.cap = cap
        clamp_limits(self)
''', "sglang/srt/decisions.py": '''\
def declare(target, source, **fields):
    stash = getattr(target, "_declared", None)
    if stash is None:
        stash = target._declared = []
    stash.append((source, fields))
''', "sglang/srt/limits_hook.py": '''\
from sglang.srt.decisions import declare


def clamp_limits(limits):
    if limits.cap is None:
        return
    if limits.size > limits.cap:
        declare(limits, "clamp", size=limits.cap, clamped=True)
'''}


def test_writes_declared_through_a_call_instead_of_made_are_an_edit_apart_from_an_equivalent_move(tmp_path):
    # the hook hands what the method wrote to `declare` (which records it, writing no field): the
    # move is judged with the writes put back, the declaration listed as the edit that changes behaviour
    before, after = _tree(tmp_path / "b", DECLARED_BEFORE), _tree(tmp_path / "a", DECLARED_AFTER)
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    assert main([str(before), str(after), "--json", str(out), "--markdown", str(md)]) == 1
    (move,) = json.loads(out.read_text())["moves"]
    assert (move["from"], move["verdict"], move["path_verdict"]) == ("Limits.clamp", "equivalent", "divergent")
    (declared,) = [e for e in move["other_edits"] if e["what"].startswith("writes declared, not made")]
    assert "`declare(limits, …, size=…, clamped=…)`" in declared["what"] and declared["changes_behaviour"] is True
    assert (declared["file"], declared["line"], declared["before"]) == \
        ("sglang/srt/limits_hook.py", 8, "sglang/srt/limits.py:11")
    assert not [e for e in move["other_edits"] if e["what"].startswith("line ")]  # said once, as the declaration
    # a value declared other than the one written is the move's own difference
    edited = {**DECLARED_AFTER, "sglang/srt/limits_hook.py": DECLARED_AFTER["sglang/srt/limits_hook.py"].replace(
        "size=limits.cap,", "size=limits.cap - 1,")}
    assert main([str(before), str(_tree(tmp_path / "e", edited)), "--json", str(out)]) == 1
    (move,) = json.loads(out.read_text())["moves"]
    assert move["verdict"] == "divergent"


RELOCATED_BEFORE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/table.py": '''\
def lookup(name):
    return name in ("a", "b")
''', "sglang/srt/args.py": '''\
from sglang.srt.table import lookup


class Args:
    def summary(self):
        return "args: " + self.describe()

    def describe(self):
        if lookup(self.name):
            return "known"
        return "unknown"
'''}
RELOCATED_AFTER = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/table.py": "", "sglang/srt/registry.py": '''\
def lookup(name):
    return name in ("a", "b")
''', "sglang/srt/describe_hook.py": '''\
from sglang.srt.registry import lookup


def describe_args(args):
    if lookup(args.name):
        return "known"
    return "unknown"
''', "sglang/srt/args.py": '''\
from sglang.srt.describe_hook import describe_args


class Args:
    def summary(self):
        return "args: " + describe_args(self)
'''}


def test_a_function_the_moved_code_calls_that_moved_module_with_its_code_is_the_same_call(tmp_path):
    # `lookup` moved from table.py to registry.py unchanged: both versions' calls of it read one answer
    before, after = _tree(tmp_path / "b", RELOCATED_BEFORE), _tree(tmp_path / "a", RELOCATED_AFTER)
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 0
    (move,) = json.loads(out.read_text())["moves"]
    assert (move["from"], move["verdict"]) == ("Args.describe", "equivalent")
    # moved with its code changed: another function, whose answers are not the same input
    edited = {**RELOCATED_AFTER, "sglang/srt/registry.py": "def lookup(name):\n    return name in ('a',)\n"}
    assert main([str(before), str(_tree(tmp_path / "e", edited)), "--json", str(out)]) == 1


def _relocated_with_helper(known_after: str) -> tuple[dict, dict]:
    # `lookup` reads a helper of its own module that moved with it; the docstrings were reworded
    before = {**RELOCATED_BEFORE, "sglang/srt/table.py": '''\
def _known():
    """The names we know."""
    return ("a", "b")


def lookup(name):
    """Whether we know `name`."""
    return name in _known()
'''}
    after = {**RELOCATED_AFTER, "sglang/srt/registry.py": f'''\
def _known():
    """Known names, in order."""
    return {known_after}


def lookup(name):
    """True for a name we know."""
    return name in _known()
'''}
    return before, after


def test_a_moved_function_is_the_same_call_with_its_docstrings_reworded_and_its_helpers_read_through(tmp_path):
    out = tmp_path / "r.json"
    before, after = _relocated_with_helper('("a", "b")')
    assert main([str(_tree(tmp_path / "b", before)), str(_tree(tmp_path / "a", after)), "--json", str(out)]) == 0
    (move,) = json.loads(out.read_text())["moves"]
    assert move["verdict"] == "equivalent"
    # the helper it reads answers otherwise: another function, whatever the docstrings say
    before, edited = _relocated_with_helper('("a",)')
    assert main([str(_tree(tmp_path / "b2", before)), str(_tree(tmp_path / "e", edited)), "--json", str(out)]) == 1


def test_a_line_apart_that_is_no_assignment_beside_a_declaration_is_listed(tmp_path):
    # the declaration is said once; a changed line that writes nothing (a condition) is still an edit
    edited = {**DECLARED_AFTER, "sglang/srt/limits_hook.py": DECLARED_AFTER["sglang/srt/limits_hook.py"].replace(
        "if limits.cap is None:", "if not limits.cap:")}
    out = tmp_path / "r.json"
    assert main([str(_tree(tmp_path / "b", DECLARED_BEFORE)), str(_tree(tmp_path / "e", edited)), "--json", str(out)]) == 1
    (move,) = json.loads(out.read_text())["moves"]
    whats = [e["what"] for e in move["other_edits"]]
    assert any(w.startswith("writes declared") for w in whats)
    assert any(w.startswith("line changed") and "limits.cap" in w for w in whats)
