"""codemods.extract_component where the owner's bases set up what the moved code reads
(`fixtures/components/index_pool`: a DSA pool whose `page_size`, `start_layer` its base's
`__init__` assigns, and `quant_block_size` a class attribute), and where other code reads a moved
method by name (`hasattr(pool, "get_index_buffer")`)."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from codemods.extract_component import ComponentSpec, Refusal, refactor, write_plan

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "components" / "index_pool"
POOL = "sglang/srt/mem_cache/memory_pool.py"
TARGET = "sglang.srt.mem_cache.index_key_cache.IndexKeyCache"
TARGET_FILE = "sglang/srt/mem_cache/index_key_cache.py"
INDEXER = "sglang/srt/layers/indexer.py"


def _tree(dest: Path, edits: list[tuple[str, str]] = ()) -> Path:
    shutil.copytree(FIXTURE, dest)
    text = (dest / POOL).read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (dest / POOL).write_text(text)
    return dest


def _spec(*methods: str, **changes) -> ComponentSpec:
    return ComponentSpec(class_name="DSATokenToKVPool", target=TARGET, methods=methods, attr="index_key_cache",
                         **changes)


def _owner_init(root: Path) -> list[str]:
    tree = ast.parse((root / POOL).read_text())
    cls = next(s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == "DSATokenToKVPool")
    init = next(s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__")
    return [ast.unparse(s) for s in init.body]


def test_fields_a_base_init_assigns_and_a_class_attribute_are_ready_after_super_init(tmp_path):
    root = _tree(tmp_path / "t")
    write_plan(refactor(root, _spec("index_row_len")))
    component = next(s for s in ast.parse((root / TARGET_FILE).read_text()).body if isinstance(s, ast.ClassDef))
    fields = [s.target.id for s in component.body if isinstance(s, ast.AnnAssign)]
    assert fields == ["page_size", "index_head_dim", "quant_block_size"]
    init = _owner_init(root)
    assert init[:3] == ["super().__init__(size, page_size, layer_num, start_layer)",
                        "self.index_head_dim = index_head_dim", "self.init_index_key_cache()"]
    assert "self.index_key_cache.index_row_len()" in init[3]


def test_a_base_init_that_reaches_a_moved_method_leaves_no_construction_point(tmp_path):
    root = _tree(tmp_path / "t", [
        ("        super().__init__(size, page_size, layer_num, start_layer)\n        self.index_head_dim = index_head_dim\n",
         "        self.index_head_dim = index_head_dim\n        super().__init__(size, page_size, layer_num, start_layer)\n"),
        ("    def get_index_buffer(self, layer_id: int):\n",
         "    def _set_start(self, start_layer):\n        super()._set_start(start_layer)\n"
         "        self.first_row_len = self.index_row_len()\n\n    def get_index_buffer(self, layer_id: int):\n")])
    with pytest.raises(Refusal) as caught:
        refactor(root, _spec("index_row_len"))
    assert "no valid construction point: this statement of DSATokenToKVPool.__init__ may use IndexKeyCache" \
        in str(caught.value)
    assert caught.value.line == 29  # super().__init__(...): the base's __init__ calls self._set_start


def test_a_read_by_name_refuses_unless_the_delegations_stay(tmp_path):
    root = _tree(tmp_path / "t")
    with pytest.raises(Refusal) as caught:
        refactor(root, _spec("get_index_buffer"))
    assert f"{INDEXER}:2: reads pool.get_index_buffer by name (hasattr): the delegation goes in step 3" \
        in str(caught.value)
    before = (root / INDEXER).read_text()
    plan = refactor(root, _spec("get_index_buffer", keep_wrappers=True))
    assert any(f"{INDEXER}:2: reads pool.get_index_buffer by name (hasattr); the delegations are kept" in m
               for m in plan.messages)
    write_plan(plan)
    assert (root / INDEXER).read_text() == before
    assert "return self.index_key_cache.get_index_buffer(layer_id)" in (root / POOL).read_text()
