"""pysource.attribute_text: the bindings of an attribute told from a file's text, and whether the
file may declare its type (else `attribute_contract` does not parse it). A parameter on a line
of its own binds nothing; what the text cannot tell is left to the parse; and on a real release
the contract read with that pruning is the contract read parsing every file that binds the name."""

from __future__ import annotations

from textwrap import dedent

import pytest

from pysource import receivers
from pysource.receivers import contract
from pysource.attribute_text import bindings
from pysource.checkout import Checkout
from pysource.parsing import Parses
from tests.releases import release_root

SIGNATURE = dedent("""\
    class Backend:
        def __init__(
            self,
            model_runner: ModelRunner,
            other: int,
        ):
            pass
    """)

CASES = [  # (text, the lines binding model_runner, may declare its type)
    (SIGNATURE, [], False),
    ("def f(\n    model_runner: ModelRunner\n):\n    pass\n", [], False),  # the last parameter
    ("def f(\n    model_runner: ModelRunner  # doc\n    # more\n) -> None:\n    pass\n", [], False),
    ("def f(x,\n    model_runner: ModelRunner) -> None:\n    pass\n", [], False),
    ("class C:\n    model_runner: ModelRunner  # doc\n    other: int\n", [2], True),  # class-level
    ("class C:\n    model_runner: Dict[int,\n        Foo]\n", [2], True),  # an annotation over lines
    ('def f(\n    model_runner: "ModelRunner",\n):\n    pass\n', [2], True),  # a quote: the parse says
    ("def f(\n    model_runner: M = None,\n):\n    pass\n", [2], True),  # `=`: the parse says
    ("class C:\n    def __init__(self, model_runner: M):\n        self.model_runner = model_runner\n", [3], True),
    ("class C:\n    def __init__(\n        self,\n        x,  # doc\n        model_runner: M,\n    ):\n"
     "        self.model_runner = model_runner\n", [7], True),  # the parameter after a comment
    ("class C:\n    def __init__(self, runner):\n        self.model_runner = runner\n", [3], False),
    ("class C:\n    def f(self):\n        self.model_runner = _Dummy()\n", [3], True),
    ("class C:\n    def f(self):\n        self.model_runner = m.Runner(1)\n", [3], True),
    ("class C:\n    def f(self):\n        self.model_runner = (\n            Runner()\n        )\n", [3], True),
    ("class C:\n    def f(self):\n        self.model_runner = self.other = Runner()\n", [3], True),
    ("class C:\n    def f(self):\n        self.model_runner: M = None\n", [3], True),
    ("class C:\n    def f(self):\n        self.model_runner = None  # set later\n", [3], False),
    ("class C:\n    @property\n    def model_runner(self):\n        return 1\n", [3], True),
]


@pytest.mark.parametrize("text,lines,may_declare", CASES)
def test_bindings_from_text(text, lines, may_declare):
    assert bindings(text.encode(), "model_runner") == (lines, may_declare)


def _contracts(root, attrs, parse_every_file: bool) -> dict:
    told = contract.bindings
    if parse_every_file:
        contract.bindings = lambda data, attr: (told(data, attr)[0], True)
    try:
        with Parses():
            program = receivers.Program(Checkout(root, root, "sglang"))
            return {a: (program.attribute_contract(a)[0], sorted(program.attribute_contract(a)[1])) for a in attrs}
    finally:
        contract.bindings = told


# names bound all over sglang, in signatures spanning lines (`model_runner`, `layer_id`), through
# `_Dummy()` (`scheduler`), after a parameter whose line ends in a comment (`num_heads`)
ATTRIBUTES = ["model_runner", "scheduler", "num_heads", "server_args", "tp_size", "layer_id", "hidden_size",
              "tree_cache", "tp_worker", "draft_worker", "attn_backend", "req_to_token_pool"]


def test_the_contract_is_what_parsing_every_binding_file_gives_on_a_release():
    root = release_root("0.5.18")
    assert _contracts(root, ATTRIBUTES, parse_every_file=False) == _contracts(root, ATTRIBUTES, parse_every_file=True)
