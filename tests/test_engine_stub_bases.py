"""A class of the code under test whose base is a stub (a library that is not installed): it is
defined with the class keywords the real base takes, and constructing it is a use of the stub,
reported as not modelled (inconclusive), never as a difference (fixtures/methods/stub_struct,
shaped like 0.5.16's `DecodeGraphCapture(msgspec.Struct, frozen=True, kw_only=True)`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from equivalence.cli import main

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "methods" / "stub_struct"


def test_constructing_a_class_on_a_stub_base_is_not_modelled(tmp_path):
    out = tmp_path / "r.json"
    code = main(["--method", "ModelRunner.capture_graph", str(FIXTURE), str(shutil.copytree(FIXTURE, tmp_path / "a")),
                 "--json", str(out)])
    report = json.loads(out.read_text())
    assert (code, report["verdict"]) == (2, "inconclusive")
    (pair,) = report["pairs"]
    assert pair["divergences"] == []
    (not_modelled,) = pair["not_modelled"]
    assert not_modelled["example"] == {"self.device": "cuda"}
    assert not_modelled["before"]["not_modelled"] == ["structs_not_installed.Struct"]
    assert "(constructor)" in not_modelled["after"]["exception"]
