"""import_graph: module-level import edges (exact by ast, over-approximated by a regular
expression, never under it) and the new import cycle new edges would close
(fixtures/checkouts/import_cycles)."""

from __future__ import annotations

import pytest

from pysource.checkout import Checkout
from codemods.checkout.import_graph import ImportGraph
from tests.checkouts import copy_fixture, make_checkout

MR = "sglang.srt.model_executor.model_runner"
NUMA = "sglang.srt.utils.numa_utils"
SCHEDULER = "sglang.srt.managers.scheduler"


@pytest.fixture
def graph(tmp_path):
    root = copy_fixture("import_cycles", tmp_path / "c")
    return ImportGraph(Checkout.find(root, root / "python"))


def test_a_new_edge_closing_a_cycle_names_it(graph):
    assert graph.cycle_closed_by([(MR, NUMA)]) == [MR, NUMA, SCHEDULER, MR]


def test_edges_into_a_module_that_does_not_exist_yet(graph):
    target = "sglang.srt.model_executor.components.moe_ep_setup"
    assert graph.cycle_closed_by([(MR, target), (target, "sglang.srt.utils")]) is None
    assert graph.cycle_closed_by([(MR, target), (target, "sglang.srt.managers")]) is None
    assert graph.cycle_closed_by([(MR, target), (target, SCHEDULER)]) == [MR, target, SCHEDULER, MR]


def test_a_cycle_through_two_new_edges(graph):
    docs = "sglang.srt.utils.docs"
    assert graph.cycle_closed_by([(MR, docs), (docs, SCHEDULER)]) == [MR, docs, SCHEDULER, MR]
    common = "sglang.srt.utils.common"  # the runner imports it already: the cycle starts at the new edge
    assert graph.cycle_closed_by([(MR, common), (common, SCHEDULER)]) == [common, SCHEDULER, MR, common]


def test_a_type_checking_import_back_is_no_cycle_but_a_module_level_one_is(graph):
    assert graph.cycle_closed_by([(MR, "sglang.srt.layers.quant")]) == [MR, "sglang.srt.layers.quant", MR]
    assert graph.cycle_closed_by([(MR, "sglang.srt.utils.lazy")]) is None  # function / TYPE_CHECKING imports


def test_modules_already_in_one_cycle_may_import_each_other(graph):
    a, c = "sglang.srt.layers.a", "sglang.srt.layers.c"
    assert graph.path(a, c) and graph.path(c, a)  # a -> b -> c -> a before
    assert c not in graph.edges(a)
    assert graph.cycle_closed_by([(a, c)]) is None


def test_an_edge_that_exists_already_is_not_new(graph):
    assert graph.cycle_closed_by([(SCHEDULER, MR), (MR, "sglang.srt.utils")]) is None


def test_an_import_in_a_docstring_is_dropped_when_a_path_is_checked(graph):
    docs = "sglang.srt.utils.docs"
    assert MR in graph._read_rough(docs)  # the regular expression over-approximates
    assert graph.edges(docs) == set()
    assert graph.cycle_closed_by([(MR, docs)]) is None


def test_a_new_edge_to_a_module_with_no_way_back(graph):
    assert graph.cycle_closed_by([(MR, NUMA.rpartition(".")[0])]) is None
    assert graph.cycle_closed_by([]) is None


# id: (module text, its edges): the file is python/sglang/srt/x/mod.py
EDGES = {
    "import-dotted": ("import sglang.srt.utils.common\n", {"sglang", "sglang.srt", "sglang.srt.utils",
                                                           "sglang.srt.utils.common"}),
    "from-package-import-submodule": ("from sglang.srt.utils import common, helper\n",
                                      {"sglang", "sglang.srt", "sglang.srt.utils", "sglang.srt.utils.common"}),
    "relative": ("from ..utils import common as c\nfrom . import sibling\n",
                 {"sglang", "sglang.srt", "sglang.srt.utils", "sglang.srt.utils.common", "sglang.srt.x",
                  "sglang.srt.x.sibling"}),
    "parenthesised-and-continued": ("from sglang.srt.utils import (\n    helper,\n    common,\n)\n"
                                    "import os, \\\n    sglang.srt\n",
                                    {"sglang", "sglang.srt", "sglang.srt.utils", "sglang.srt.utils.common"}),
    "try-if-class": ("try:\n    import sglang.srt.utils\nexcept ImportError:\n    pass\nif X:\n"
                     "    from sglang.srt import x\nclass A:\n    import sglang.srt.x.sibling\n",
                     {"sglang", "sglang.srt", "sglang.srt.utils", "sglang.srt.x", "sglang.srt.x.sibling"}),
    "type-checking-else": ("import typing\nif typing.TYPE_CHECKING:\n    import sglang.srt.utils\nelse:\n"
                           "    import sglang.srt.x\n", {"sglang", "sglang.srt", "sglang.srt.x"}),
    "function-level": ("def f(\n    a,\n):\n    import sglang.srt.utils\n\n\nasync def g():\n"
                       "    if a:\n        from sglang.srt import x\n", set()),
    "third-party-and-self": ("import torch\nfrom sglang.srt.x import mod\n",
                             {"sglang", "sglang.srt", "sglang.srt.x"}),
}


@pytest.mark.parametrize("case", EDGES)
def test_module_level_edges(tmp_path, case):
    text, expected = EDGES[case]
    checkout = make_checkout(tmp_path, {
        "python/sglang/srt/utils/__init__.py": "", "python/sglang/srt/utils/common.py": "",
        "python/sglang/srt/x/__init__.py": "", "python/sglang/srt/x/sibling.py": "",
        "python/sglang/srt/x/mod.py": text})
    graph = ImportGraph(checkout)
    assert graph.edges("sglang.srt.x.mod") == expected
    assert graph._read_rough("sglang.srt.x.mod") == expected
