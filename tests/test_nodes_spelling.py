"""`File.nodes_spelling` walks only the lines that spell some words: it finds every node spelling
one of them that a walk of the whole file finds, with the right parents, and the searches built on
it (the uses of a method, the functions declaring `global NAME`) find what whole walks find."""

import ast
import textwrap
from pathlib import Path

from pysource.imports import FileNames, nodes
from pysource.receivers import File
from pysource.receivers.names import declaring_global

TRICKY = textwrap.dedent('''\
    import runner

    @runner.save
    def decorated(x=lambda: runner.save()):
        y = (runner
             .save)(1)
        z = f"{runner.save()!r:>{runner.width}}"
        return [runner.save for _ in range(2)]

    def outer():
        def inner():
            global COUNT, \\
                TOTAL
            TOTAL = 1
        # global TOTAL in a comment declares nothing
        return inner

    def unrelated():
        TOTAL = 2
        return runner.load()

    class Holder:
        def method(self):
            global TOTAL
            TOTAL = self.save()
    ''')


def _file(text: str) -> File:
    tree = ast.parse(text)
    return File(Path("m.py"), tree, FileNames(tree, "pkg", "pkg.m", text=text), "pkg.m")


def _every_parent(tree: ast.AST) -> dict[int, ast.AST]:
    shared = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)  # one object for all uses
    return {id(c): n for n in nodes(tree) for c in ast.iter_child_nodes(n) if not isinstance(c, shared)}


def test_every_node_spelling_the_word_is_found_with_its_parent():
    f = _file(TRICKY)
    found = list(f.nodes_spelling(["save"]))
    spelled = [n for n in nodes(f.tree) if isinstance(n, ast.Attribute) and n.attr == "save"]
    assert len(spelled) == 6
    assert {id(n) for n in found if isinstance(n, ast.Attribute) and n.attr == "save"} == {id(n) for n in spelled}
    assert not any(isinstance(n, ast.Attribute) and n.attr == "load" for n in found)  # other lines left out
    parents = _every_parent(f.tree)
    noted = {k: v for k, v in f._parents.items() if k in parents}
    assert noted and all(parents[k] is v for k, v in noted.items())


def test_enclosing_answers_as_from_the_whole_tree():
    f, whole = _file(TRICKY), _file(TRICKY)
    found = [n for n in f.nodes_spelling(["save", "width"]) if isinstance(n, ast.Attribute)]
    by_line = {(n.lineno, n.col_offset): n for n in nodes(whole.tree) if isinstance(n, ast.Attribute)}
    for n in found:
        fn, cls = f.enclosing(n)
        other_fn, other_cls = whole.enclosing(by_line[(n.lineno, n.col_offset)])
        assert (getattr(fn, "lineno", None), getattr(cls, "name", None)) == \
               (getattr(other_fn, "lineno", None), getattr(other_cls, "name", None))
    assert not f._every_parent  # answered from the parents noted on the way


def test_functions_declaring_a_global_as_a_whole_walk_finds_them():
    f = _file(TRICKY)

    def whole_walk(name):
        return sorted(n.name for n in nodes(f.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and any(isinstance(s, ast.Global) and name in s.names for s in nodes(n)))

    assert sorted(n.name for n in declaring_global(f, "TOTAL")) == whole_walk("TOTAL") == ["inner", "method", "outer"]
    assert sorted(n.name for n in declaring_global(f, "COUNT")) == whole_walk("COUNT") == ["inner", "outer"]
    assert declaring_global(f, "MISSING") == []


def test_without_the_text_every_node_is_walked():
    tree = ast.parse(TRICKY)
    f = File(Path("m.py"), tree, FileNames(tree, "pkg", "pkg.m"), "pkg.m")
    assert len(list(f.nodes_spelling(["save"]))) == len(list(nodes(tree)))
