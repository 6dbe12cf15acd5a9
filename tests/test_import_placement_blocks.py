"""A new import joins the last import block before the first def or class: statements between
blocks (sglang's scheduler calls `suppress_noisy_warnings()` before most of its imports) may be
what the later imports rely on, so an import that joined the leading block would load what it
brings before they ran (found by a sweep of 0.5.21's Scheduler)."""

from __future__ import annotations

from textwrap import dedent

import libcst as cst
import pytest

from codemods.core.formatting import Style
from codemods.syntax.import_placement import add_import, from_import

STYLE = Style()

EFFECT_BETWEEN = dedent("""\
    \"\"\"Doc.\"\"\"
    import os

    from sglang.srt.utils import quiet

    quiet()
    os.environ.setdefault("QUIET", "1")

    import json
    from sglang.srt.managers.io import Req


    class Scheduler:
        pass


    from sglang.srt.late import late  # noqa: E402
    """)


def _added(text: str, mod: str, name: str) -> str:
    return add_import(cst.parse_module(text), from_import(mod, [name]), STYLE, "sglang").code


def test_a_new_line_joins_the_block_after_the_calls():
    out = _added(EFFECT_BETWEEN, "sglang.srt.managers.store", "Store")
    assert out == EFFECT_BETWEEN.replace("from sglang.srt.managers.io import Req\n",
                                         "from sglang.srt.managers.io import Req\n"
                                         "from sglang.srt.managers.store import Store\n")


def test_a_name_from_a_module_only_an_earlier_block_imports_is_a_line_of_its_own():
    out = _added(EFFECT_BETWEEN, "sglang.srt.utils", "helper")
    assert "from sglang.srt.utils import quiet\n" in out  # unchanged: it runs before quiet()
    assert out.index("from sglang.srt.utils import helper") > out.index("quiet()")


def test_a_name_from_a_module_the_block_imports_joins_its_line():
    out = _added(EFFECT_BETWEEN, "sglang.srt.managers.io", "Batch")
    assert out == EFFECT_BETWEEN.replace("import Req\n", "import Batch, Req\n")


@pytest.mark.parametrize("text", ["import os\n\nx = 1\n\n\nclass A:\n    pass\n",
                                  "import os\n\n\ndef f():\n    pass\n\n\nimport sys\n"])
def test_one_block_before_the_first_def_is_the_leading_one(text):
    out = _added(text, "sglang.srt.store", "Store")
    assert out.startswith("import os\n\nfrom sglang.srt.store import Store\n")
