"""Moves the check could not run on 0.5.15.post1 -> 0.5.16, each by a general mechanism pinned
here with trees of its own: a mixin dissolved into a component that a method other code calls
builds (not `__init__`), some of its methods renamed and one moved into a function the component
calls, the mixin's file gone."""

from __future__ import annotations

import json
from pathlib import Path

from equivalence.cli import main

PACKAGE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": ""}


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _moves(tmp_path: Path, before: dict, after: dict) -> tuple[int, dict[str, dict]]:
    b, a = _tree(tmp_path / "b", before), _tree(tmp_path / "a", after)
    out = tmp_path / "r.json"
    code = main([str(b), str(a), "--json", str(out)])
    return code, {m["from"]: m for m in json.loads(out.read_text())["moves"]}


MIXIN_BEFORE = {**PACKAGE, "sglang/srt/pool_mixin.py": '''\
class PoolSizingMixin:
    def size_pool(self, budget):
        pages = self._pages_for(budget)
        if pages > self.max_pages:
            pages = self.max_pages
        return pages

    def _pages_for(self, budget):
        if budget <= 0:
            raise ValueError(f"no budget: {budget}")
        return budget // self.bytes_per_page()

    def bytes_per_page(self):
        per_token = self.head_dim * self.num_heads * 2
        if self.use_fp8:
            per_token //= 2
        return per_token * self.page_tokens
''', "sglang/srt/engine.py": '''\
from sglang.srt.pool_mixin import PoolSizingMixin


class Engine(PoolSizingMixin):
    def __init__(self, head_dim, num_heads, use_fp8, page_tokens, max_pages):
        self.head_dim = head_dim
        self.num_heads = num_heads
        self.use_fp8 = use_fp8
        self.page_tokens = page_tokens
        self.max_pages = max_pages

    def allocate(self, budget):
        self.pool_pages = self.size_pool(budget)
        return self.pool_pages
'''}
MIXIN_AFTER = {**PACKAGE, "sglang/srt/pool_sizer.py": '''\
class PoolSizer:
    def __init__(self, head_dim, num_heads, use_fp8, page_tokens, max_pages):
        self.head_dim = head_dim
        self.num_heads = num_heads
        self.use_fp8 = use_fp8
        self.page_tokens = page_tokens
        self.max_pages = max_pages

    def size_pool(self, budget):
        pages = self.pages_for(budget)
        if pages > self.max_pages:
            pages = self.max_pages
        return pages

    def pages_for(self, budget):
        if budget <= 0:
            raise ValueError(f"no budget: {budget}")
        return budget // bytes_per_page(self.head_dim, self.num_heads, self.use_fp8, self.page_tokens)


def bytes_per_page(head_dim, num_heads, use_fp8, page_tokens):
    per_token = head_dim * num_heads * 2
    if use_fp8:
        per_token //= 2
    return per_token * page_tokens
''', "sglang/srt/engine.py": '''\
from sglang.srt.pool_sizer import PoolSizer


class Engine:
    def __init__(self, head_dim, num_heads, use_fp8, page_tokens, max_pages):
        self.head_dim = head_dim
        self.num_heads = num_heads
        self.use_fp8 = use_fp8
        self.page_tokens = page_tokens
        self.max_pages = max_pages

    def init_pool_sizer(self):
        self.pool_sizer = PoolSizer(head_dim=self.head_dim, num_heads=self.num_heads, use_fp8=self.use_fp8,
                                    page_tokens=self.page_tokens, max_pages=self.max_pages)

    def allocate(self, budget):
        self.init_pool_sizer()
        self.pool_pages = self.pool_sizer.size_pool(budget)
        return self.pool_pages
'''}


def test_a_mixin_dissolved_into_a_component_built_outside_init(tmp_path):
    # the user ran the mixin's methods as it inherited them; after, `allocate` (which other code
    # calls, not `__init__`) builds the component; `_pages_for` is renamed, `bytes_per_page` is a
    # function of the component's module now, and the mixin's file is gone
    code, moves = _moves(tmp_path, MIXIN_BEFORE, MIXIN_AFTER)
    assert {k: (m["kind"], m["verdict"]) for k, m in moves.items()} == {
        "PoolSizingMixin.size_pool": ("component", "equivalent"),
        "PoolSizingMixin._pages_for": ("component", "equivalent"),
        "PoolSizingMixin.bytes_per_page": ("function, callers rewritten", "equivalent")}, moves
    assert code == 0
    assert "driven through a delegation" in moves["PoolSizingMixin.bytes_per_page"]["why"]
    # the function moved along runs for real inside the component's check: an edit of it shows there too
    after = {**MIXIN_AFTER, "sglang/srt/pool_sizer.py": MIXIN_AFTER["sglang/srt/pool_sizer.py"].replace(
        "    if use_fp8:", "    if not use_fp8:")}
    code, moves = _moves(tmp_path / "edited", MIXIN_BEFORE, after)
    assert code == 1
    assert {k: m["verdict"] for k, m in moves.items()} == dict.fromkeys(moves, "divergent")


ALIGNED_BEFORE = {**PACKAGE, "sglang/srt/runner.py": '''\
class Runner:
    def __init__(self, server_args, updater):
        self.server_args = server_args
        self.updater = updater

    def rebalance(self, layer_ids):
        missing = self.updater.update(layer_ids, nnodes=self.server_args.nnodes)
        if missing:
            self.reload_weights(missing)
        if self.server_args.dispatch == "lp":
            self.reset_solvers()
        return len(missing)
''', "sglang/srt/manager.py": '''\
def run(runner, layer_ids):
    return runner.rebalance(layer_ids)
'''}
ALIGNED_AFTER = {**PACKAGE, "sglang/srt/runner.py": '''\
class Runner:
    def __init__(self, server_args, updater):
        self.server_args = server_args
        self.updater = updater
''', "sglang/srt/recovery.py": '''\
def rebalance_with_recovery(*, updater, layer_ids, nnodes, reload_callable, dispatch, reset_callable):
    missing = updater.update(layer_ids, nnodes=nnodes)
    if missing:
        reload_callable(missing)
    if dispatch == "lp":
        reset_callable()
    return len(missing)
''', "sglang/srt/manager.py": '''\
from sglang.srt.recovery import rebalance_with_recovery


def run(runner, layer_ids):
    return rebalance_with_recovery(updater=runner.updater, layer_ids=layer_ids,
                                   nnodes=runner.server_args.nnodes, reload_callable=runner.reload_weights,
                                   dispatch=runner.server_args.dispatch, reset_callable=runner.reset_solvers)
'''}


def test_a_function_only_other_modules_call_gets_what_the_old_body_read_in_the_same_place(tmp_path):
    # `nnodes`, `dispatch`, `reload_callable`, `reset_callable` are named after nothing the old
    # body read: the new body reads each where the old one read an attribute chain of `self`
    code, moves = _moves(tmp_path, ALIGNED_BEFORE, ALIGNED_AFTER)
    move = moves["Runner.rebalance"]
    assert (code, move["verdict"]) == (0, "equivalent"), move
    assert "nnodes=self.server_args.nnodes" in move["why"] and "reset_callable=self.reset_solvers" in move["why"]
    # a parameter read where the old body computed something else is still refused, named
    after = {**ALIGNED_AFTER, "sglang/srt/recovery.py": ALIGNED_AFTER["sglang/srt/recovery.py"].replace(
        "    if missing:\n", "    missing = [m for m in missing if m not in skip]\n    if missing:\n").replace(
        "reset_callable):", "reset_callable, skip):")}
    code, moves = _moves(tmp_path / "edited", ALIGNED_BEFORE, after)
    assert (code, moves["Runner.rebalance"]["verdict"]) == (2, "could not run")
    assert "parameter 'skip' of rebalance_with_recovery stands for nothing" in moves["Runner.rebalance"]["why"]


PROPERTY_BEFORE = {**PACKAGE, "sglang/srt/exporter.py": '''\
class Exporter:
    def __init__(self, model, rank):
        self.model = model
        self.rank = rank

    def publish(self, sink):
        if self.rank != 0:
            return None
        names = sorted(self.model.names())
        sink.send(names)
        return len(names)
'''}
PROPERTY_AFTER = {**PACKAGE, "sglang/srt/exporter.py": '''\
from sglang.srt.publisher import Publisher


class Exporter:
    def __init__(self, model, rank):
        self.model = model
        self.rank = rank
        self.publisher = Publisher(get_model=lambda: self.model, rank=self.rank)
''', "sglang/srt/publisher.py": '''\
from dataclasses import dataclass
from typing import Callable


@dataclass(kw_only=True)
class Publisher:
    get_model: Callable
    rank: int

    @property
    def model(self):
        return self.get_model()

    def publish(self, sink):
        if self.rank != 0:
            return None
        names = sorted(self.model.names())
        sink.send(names)
        return len(names)
'''}


def test_a_component_property_of_the_name_the_old_body_read_runs_as_its_getter(tmp_path):
    code, moves = _moves(tmp_path, PROPERTY_BEFORE, PROPERTY_AFTER)
    assert (code, moves["Exporter.publish"]["verdict"]) == (0, "equivalent"), moves


STATIC_BEFORE = {**PACKAGE, "sglang/srt/audio.py": '''\
class AudioAttention:
    def __init__(self, scale):
        self.scale = scale

    def forward(self, q, k):
        return self.rotate(q, k) + self.shifted(q, 3)

    @staticmethod
    def rotate(q, k, shift=1):
        if shift < 0:
            raise ValueError(f"negative shift {shift}")
        return q * shift + k

    @classmethod
    def shifted(cls, q, by):
        if by <= 1:
            return q
        total = q + by
        if by % 2:
            total = total - by * 2
        return total
'''}
STATIC_AFTER = {**PACKAGE, "sglang/srt/audio.py": '''\
class AudioAttention:
    def __init__(self, scale):
        self.scale = scale

    def forward(self, q, k):
        return self.fused(q, k)
''', "sglang/srt/rope.py": '''\
def rotate(q, k, shift=1):
    if shift < 0:
        raise ValueError(f"negative shift {shift}")
    return q * shift + k


def shifted(q, by):
    if by <= 1:
        return q
    total = q + by
    if by % 2:
        total = total - by * 2
    return total
''', "sglang/srt/vision.py": '''\
from sglang.srt.rope import rotate, shifted


def attend(q, k):
    return rotate(q, k) + shifted(q, 3)
'''}


def test_a_static_or_class_method_only_other_modules_call_now_is_called_directly(tmp_path):
    code, moves = _moves(tmp_path, STATIC_BEFORE, STATIC_AFTER)
    assert {k: m["verdict"] for k, m in moves.items()} == {"AudioAttention.rotate": "equivalent",
                                                            "AudioAttention.shifted": "equivalent"}, moves


FACTORY_BEFORE = {**PACKAGE, "sglang/srt/worker.py": '''\
class Worker:
    def __init__(self, config, rows):
        self.config = config
        self.rows = rows

    def start(self):
        self.setup_table()

    def setup_table(self):
        enabled = self.config.use_table
        table = None
        if enabled:
            if self.rows <= 0:
                raise ValueError(f"no rows: {self.rows}")
            table = [0] * self.rows
        self.enabled = enabled
        self.table = table

    def fill_table(self, value):
        if not self.enabled:
            return None
        return [value + cell for cell in self.table]
'''}
FACTORY_AFTER = {**PACKAGE, "sglang/srt/worker.py": '''\
from sglang.srt.table import TableManager


class Worker:
    def __init__(self, config, rows):
        self.config = config
        self.rows = rows

    def start(self):
        self.init_table_manager()

    def init_table_manager(self):
        self.table_manager = TableManager.from_config(config=self.config, rows=self.rows)
''', "sglang/srt/table.py": '''\
from dataclasses import dataclass
from typing import Optional


@dataclass(kw_only=True)
class TableManager:
    enabled: bool
    table: Optional[list]

    @classmethod
    def from_config(cls, *, config, rows):
        enabled = config.use_table
        table = None
        if enabled:
            if rows <= 0:
                raise ValueError(f"no rows: {rows}")
            table = [0] * rows
        return cls(enabled=enabled, table=table)

    def fill_table(self, value):
        if not self.enabled:
            return None
        return [value + cell for cell in self.table]
'''}


def test_a_component_built_by_a_factory_the_moved_method_became(tmp_path):
    code, moves = _moves(tmp_path, FACTORY_BEFORE, FACTORY_AFTER)
    assert {k: (m["to"], m["verdict"]) for k, m in moves.items()} == {
        "Worker.setup_table": ("Worker.table_manager.from_config", "equivalent"),
        "Worker.fill_table": ("Worker.table_manager.fill_table", "equivalent")}, moves
