"""One run of each command on a real release parses no identical source text twice with the same
parser (`ast.parse`, `libcst.parse_module`), whoever in our packages asks (`pysource.parsing`)."""

from __future__ import annotations

import ast
import collections
import shutil
import sys
from pathlib import Path

import libcst
import pytest

from tests.releases import release_root

REPO = Path(__file__).resolve().parent.parent
OURS = tuple(str(REPO / p) for p in ("pysource", "codemods", "equivalence"))
VERSION = "0.5.15.post1"


class Counter:
    """Counts the texts parsed by calls made from our packages (torch parses its own sources)."""

    def __init__(self, monkeypatch):
        self.texts: dict[str, collections.Counter] = {"ast": collections.Counter(), "libcst": collections.Counter()}
        real_ast, real_cst = ast.parse, libcst.parse_module

        def counted(kind, real):
            def parse(source, *args, **kwargs):
                if isinstance(source, (str, bytes)) and sys._getframe(1).f_code.co_filename.startswith(OURS):
                    self.texts[kind][source if isinstance(source, str) else source.decode("utf-8", "replace")] += 1
                return real(source, *args, **kwargs)
            return parse

        monkeypatch.setattr(ast, "parse", counted("ast", real_ast))
        monkeypatch.setattr(libcst, "parse_module", counted("libcst", real_cst))

    def repeated(self) -> dict[str, list[tuple[int, str]]]:
        """parser -> (times, the text's first line) of every text parsed more than once."""
        return {kind: [(n, text.lstrip().split("\n")[0][:80]) for text, n in texts.items() if n > 1]
                for kind, texts in self.texts.items() if any(n > 1 for n in texts.values())}

    def total(self) -> int:
        return sum(sum(t.values()) for t in self.texts.values())


def test_extract_method(monkeypatch, capsys):
    from codemods.extract_method.__main__ import main

    counter = Counter(monkeypatch)
    assert main([str(release_root(VERSION)), "ModelRunner.check_quantized_moe_compatibility",
                 "sglang.srt.model_executor.model_runner_components.moe_ep_setup", "--dry-run"]) == 0
    assert counter.total() > 5 and counter.repeated() == {}


def test_extract_kv_dtype(monkeypatch, capsys):
    from codemods.extract_kv_dtype.__main__ import main

    counter = Counter(monkeypatch)
    assert main([str(release_root(VERSION)), "--dry-run"]) == 0
    assert counter.total() > 5 and counter.repeated() == {}


def test_equivalence_method(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    from codemods.extract_method import MethodSpec, refactor, write_plan
    from equivalence.cli import main

    after = tmp_path / "after"
    shutil.copytree(release_root(VERSION), after)
    write_plan(refactor(after, MethodSpec("ModelRunner", "init_threads_binding", "sglang.srt.utils.numa_utils")))
    counter = Counter(monkeypatch)
    assert main(["--method", "ModelRunner.init_threads_binding", str(release_root(VERSION)), str(after)]) == 0
    assert counter.total() > 5 and counter.repeated() == {}
