"""`def_line` finds the method's line from the places that spell its name: the same answer as
its pattern tried at every line (kept here as the reference), on tricky texts and on every file
of the fixtures."""

import ast
import re
from pathlib import Path

import pytest

from codemods.syntax.nodes import def_line

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def by_every_line(text: str, class_name: str, name: str, nth: int = 0):
    cls = re.search(rf"^class\s+{re.escape(class_name)}\b", text, re.M)
    start = cls.start() if cls else 0
    pat = re.compile(rf"^[ \t]+(?:async\s+)?def\s+{re.escape(name)}\s*\(|^[ \t]+{re.escape(name)}\s*=", re.M)
    hits = list(pat.finditer(text, start))
    return text.count("\n", 0, hits[nth].start()) + 1 if len(hits) > nth else None


TRICKY = [
    "class A:\n    async\n    def f(self): pass\n    f = 1\n",  # `async\s+` across lines: the match starts above
    "class A: pass\nclass B:\n  def f (x):\n  f\n  = 2\n  async  def f(y)\n",
    "def f(): pass\nclass A:\n\tdef\tf(\n",  # a def before the class does not count
    "x\n    async def f(",
    "class A:\n    async\n\n    def\n\n  f  (",
    "  f=1\nclass A:\n  f=2\n  f==3\n  ff=4\n  f(",
    "class Ab:\n def f(\nclass A:\n def f(\n",  # `class A\b`, not `class Ab`
    "class A:\n    asyncdef f(\n    xdef f(\n    def f(\n",
    "\n    def f(",
    " async def f(",
    "class A :\n def f(",
    "class A:\ndef f(\n f =1",  # not indented: no match
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts(text):
    for class_name in ("A", "B", "Ab", "Missing"):
        for nth in range(3):
            assert def_line(text, class_name, "f", nth) == by_every_line(text, class_name, "f", nth)


def test_every_fixture_file():
    checked = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        classes = [c.name for c in tree.body if isinstance(c, ast.ClassDef)] + ["Missing"]
        names = {f.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body
                 if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign))
                 and hasattr(f, "name")} | {"self", "__init__", "x"}
        for class_name in classes:
            for name in sorted(names):
                for nth in (0, 1):
                    assert def_line(text, class_name, name, nth) == by_every_line(text, class_name, name, nth), (
                        path, class_name, name, nth)
                    checked += 1
    assert checked > 1000
