"""Types first (issue 30): what the code declares a value to be (pysource.declared) is read off
annotations, fields and the parameters attributes are assigned from, and gives a key its first
options (engine/world/typed.py, engine/load/declared.py)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from equivalence.engine.load.declared import DeclaredKeys, split_key
from equivalence.engine.world.world import NONE, OPAQUE, seq, value
from pysource.declared import (NO_DEFAULT, DictOf, InstanceOf, ListOf, LiteralOf, OneOf, Scalar, TupleOf, NoneValue)
from pysource.extraction import locate
from tests.test_engine_reach import FIXTURE, check, extracted

ARGS = '''\
    import dataclasses
    from typing import Dict, List, Literal, Optional, Tuple, Union

    from sglang.srt.arg_utils import A
    from sglang.srt.other import Other


    @dataclasses.dataclass
    class Args:
        name: str
        size: int = 4
        ratio: "Optional[float]" = None
        mode: Literal["a", "b"] = "b"
        pair: Tuple[int, str] = (0, "")
        table: Dict[str, List[int]] = dataclasses.field(default_factory=dict)
        either: Union[int, str] = 0
        piped: int | None = None
        lying: int = None
        other: Optional[Other] = None
        anything: object = None
        aliased: A[int, "an alias of Annotated, imported"] = 7
'''
RUNNER = '''\
    from typing import Any, Dict

    from sglang.srt.args import Args


    class Runner:
        def __init__(self, args: Args, count: int, loose, twice: int):
            self.args = args
            self.count = count
            self.loose = loose
            self.twice = twice
            self.rebound = count
            self.rebound = len(loose)

        def reset(self, twice: str):
            self.twice = twice

        def method(self, opts: Dict[str, Any], limit: int = -1, *, flag: bool = False):
            return self.args.size + limit
'''
OTHER = '''\
    class Other:
        depth: int = 2

        def __init__(self):
            self.tag: str = "t"
'''


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> DeclaredKeys:
    root = tmp_path_factory.mktemp("declared")
    for rel, text in {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/args.py": ARGS,
                      "sglang/srt/runner.py": RUNNER, "sglang/srt/other.py": OTHER,
                      "sglang/srt/arg_utils.py": "from typing import Annotated\n\nA = Annotated\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return DeclaredKeys.of_extraction(locate(root, "sglang/srt/runner.py", "Runner", "method", None, {}))


def shape(keys: DeclaredKeys, key: str):
    declared = keys.declared(key)
    return None if declared is None else declared.shape


def test_annotations_read_as_shapes(keys):
    assert shape(keys, "self.args") == InstanceOf("sglang.srt.args.Args")
    assert shape(keys, "self.args.name") == Scalar("str")
    assert shape(keys, "self.args.ratio") == OneOf((Scalar("float"), NoneValue()))  # a string annotation
    assert shape(keys, "self.args.mode") == LiteralOf(("a", "b"))
    assert shape(keys, "self.args.pair") == TupleOf((Scalar("int"), Scalar("str")))
    assert shape(keys, "self.args.table") == DictOf(Scalar("str"), ListOf(Scalar("int")))
    assert shape(keys, "self.args.either") == OneOf((Scalar("int"), Scalar("str")))
    assert shape(keys, "self.args.piped") == OneOf((Scalar("int"), NoneValue()))
    assert shape(keys, "self.args.lying") == OneOf((Scalar("int"), NoneValue()))  # `= None` admits None
    assert shape(keys, "self.args.anything") is None
    assert keys.declared("self.args.aliased").shape == Scalar("int") and keys.declared("self.args.aliased").default == 7


def test_keys_below_a_declared_one_are_declared_by_it(keys):
    assert shape(keys, "self.args.table['k']") == ListOf(Scalar("int"))
    assert shape(keys, "self.args.table['k'][2]") == Scalar("int")
    assert shape(keys, "self.args.pair[1]") == Scalar("str")
    assert shape(keys, "self.args.pair[5]") is None
    assert shape(keys, "self.args.other.depth") == Scalar("int")  # through Optional[Other]
    assert shape(keys, "self.args.other.tag") == Scalar("str")  # `self.tag: str = ...` in a method
    assert shape(keys, "self.args.size()") is None  # a call's result is not declared
    assert shape(keys, "sglang.srt.args.CONSTANT") is None


def test_an_attribute_assigned_a_parameter_takes_its_annotation_only_when_every_write_agrees(keys):
    assert shape(keys, "self.count") == Scalar("int")
    assert shape(keys, "self.loose") is None  # an unannotated parameter
    assert shape(keys, "self.twice") is None  # int in __init__, str in reset
    assert shape(keys, "self.rebound") is None  # also assigned len(...)


def test_the_machine_reads_are_declared_as_the_standard_library_declares_them(keys):
    assert shape(keys, "socket.gethostname()") == Scalar("str")
    assert shape(keys, "os.getpid()") == Scalar("int")
    assert shape(keys, "os.cpu_count()") == OneOf((Scalar("int"), NoneValue()))
    assert shape(keys, "socket.gethostname") is None  # the function itself is the world's stand-in


def test_the_entrys_locals_are_the_methods_parameters(keys):
    assert shape(keys, "local:opts") == DictOf(Scalar("str"), None)
    assert shape(keys, "local:flag") == Scalar("bool")
    assert keys.declared("local:limit").default == -1
    assert keys.declared("local:opts").default is NO_DEFAULT


def test_options_start_at_the_declared_default_and_end_with_a_stand_in(keys):
    assert keys.options("self.args.size") == [value(4), value(1), value(2), value(0), value(3), NONE, OPAQUE]
    assert keys.options("self.args.mode") == [value("b"), value("a"), NONE, OPAQUE]
    assert keys.options("self.args.ratio")[:2] == [NONE, value(1.0)]
    assert keys.options("self.args.table['k']") == [seq(1), seq(0), seq(2), seq(3), NONE, OPAQUE]
    assert keys.options("self.args.pair") == [("tuple", 2), NONE, OPAQUE]
    assert keys.options("self.args.ratio").count(NONE) == 1
    dicts = keys.options("local:opts", strings=("alpha",), items=("beta",))
    assert dicts[0] == ("dict", ()) and ("dict", ("beta", "alpha")) in dicts and ("dict", ("beta", "alpha", "other")) in dicts
    assert keys.options("self.args") is None  # an instance: the stand-in stays, its attributes are declared
    assert keys.options("self.loose") is None


@pytest.mark.parametrize("key, parts", [
    ("self.a.b", ("self.a", "b")),
    ("local:x['a.b']", ("local:x", ("a.b",))),
    ("self.d['k'][0]", ("self.d['k']", (0,))),
    ("self.f(1).g", ("self.f(1)", "g")),
    ("self.f(1)", (None, None)),
    ("self.d[x]", (None, None)),
])
def test_split_key(key, parts):
    assert split_key(key) == parts


def test_without_declarations_the_joined_path_is_never_passed(tmp_path, monkeypatch):
    """config_file joins a path from `server_args.model_path` before its branch: a stand-in makes
    every run raise there; the dataclass's `model_path: str` gets it through (so the proof is the
    declarations' work)."""
    after = extracted(tmp_path / "after", "config_file")
    monkeypatch.setattr(DeclaredKeys, "options", lambda self, key, *pools: None)
    code, report = check(tmp_path, "config_file", after)
    assert (code, report["verdict"]) == (2, "inconclusive")
    assert "os.path.join" in json.dumps(report["pairs"][0]["coverage"])  # the why names where every run stopped
