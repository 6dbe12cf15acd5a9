"""`FileNames` counts a name's bindings from the lines that spell it: the same counts as one walk
of every node (FileNames without the text), on tricky code and on every file of the fixtures."""

import ast
import re
import textwrap
from pathlib import Path

import pytest

from pysource.imports import FileNames

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

TRICKY = textwrap.dedent('''\
    import os, a.b as ab
    from . import sibling
    from .pkg import thing as other

    @decorate(
        deco_arg := 1)
    def function(p, /, q=lambda lam_arg: lam_arg, *args, kw, **kwargs):
        global G
        G = [c for c in range(3) if (walrus := c)]
        try:
            pass
        except ValueError as caught:
            pass
        match p:
            case [first, *rest] | {"k": first, **rest}:
                pass
            case Point(x=bound_x) as whole:
                pass
        text = f"{(in_fstring := 2)} {os.sep!r:>{width}}"
        long = \\
            continued
        del long
        ﬁle = 3
        for (i, j) in []:
            pass
        with open("x") as (fh, gh):
            pass
        return text

    @decorate
    class Klass(Base, metaclass=Meta):
        attr: int = 1
        def method(self, other: "Klass") -> Klass:
            self.attr += 1
            return Klass
    class Klass:
        pass
    ''')


def _every_name(text: str):
    return sorted(set(re.findall(r"[^\W\d]\w*", text)) | {"file", "missing"})


def _same_counts(text: str, package="sglang.x"):
    tree = ast.parse(text)
    whole = FileNames(tree, package, "sglang.x.m")  # no text: one walk of every node
    by_line = FileNames(tree, package, "sglang.x.m", text=text)
    assert [id(c) for c in by_line.class_defs] == [id(c) for c in whole.class_defs]
    assert by_line.imported == whole.imported and by_line.classes == whole.classes
    names = _every_name(text)
    for name in names:
        assert by_line._count_by_lines(name) == whole.counted(name), name
    return len(names)


def test_tricky_code():
    assert _same_counts(TRICKY) > 50
    assert _same_counts(TRICKY, package=None) > 50  # `from . import sibling` binds otherwise


def test_names_the_parser_normalises_and_carriage_returns():
    tree = ast.parse(TRICKY)
    names = FileNames(tree, "sglang.x", "sglang.x.m", text=TRICKY)
    assert "file" in names.bound_otherwise  # spelled `ﬁle`
    crlf = TRICKY.replace("\n", "\r\n")
    names = FileNames(ast.parse(crlf), "sglang.x", "sglang.x.m", text=crlf)
    assert names._all is not None and names.bound_otherwise["caught"] == 1  # counted by one walk


def test_past_the_limit_one_walk_answers():
    names = FileNames(ast.parse(TRICKY), "sglang.x", "sglang.x.m", text=TRICKY)
    whole = FileNames(ast.parse(TRICKY), "sglang.x", "sglang.x.m")
    for name in _every_name(TRICKY):
        assert (name in names.bound_otherwise, name in names.used) == (
            name in whole.bound_otherwise, name in whole.used)
    assert names._all is not None


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.py"))[::7], ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_files(path):
    text = path.read_text(encoding="utf-8")
    try:
        ast.parse(text)
    except SyntaxError:
        pytest.skip("not Python")
    _same_counts(text)
