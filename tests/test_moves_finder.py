"""The move finder (pysource/moves) on small before/after trees written here: classes followed
when they move file or are renamed, a mixin replaced by a component its users hold, delegations
that keep a guard, call sites rewired to a short helper, and what is no move (a class renamed,
a method renamed in place beside a sibling's renamed copy, a short look-alike)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pysource.moves import find_moves

BODY = """
total = 0
for index, item in enumerate(items):
    if item is None:
        continue
    total += index * self.scale + len(str(item))
return total - self.offset
"""


def _at(body: str, indent: int = 16) -> str:
    """`body` indented as a method's in the trees below (a function's at 12)."""
    return textwrap.indent(body, " " * indent)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _moves(tmp_path: Path, before: dict[str, str], after: dict[str, str]) -> dict[str, tuple]:
    found = find_moves(_tree(tmp_path / "before", before), _tree(tmp_path / "after", after))
    return {m.source: (m.kind, m.target, m.wrapper, m.to_json().get("class_now")) for m in found}


def test_a_class_that_moved_file_keeps_its_methods_and_one_left_it(tmp_path):
    before = {"sglang/srt/old_home.py": f"""
        class Loader:
            def __init__(self, scale, offset):
                self.scale, self.offset = scale, offset

            def weigh(self, items):{_at(BODY)}
            def name(self):
                return "loader"
        """}
    after = {"sglang/srt/loading/loader.py": """
        from sglang.srt.loading.weights import weigh


        class Loader:
            def __init__(self, scale, offset):
                self.scale, self.offset = scale, offset

            def name(self):
                return "loader"
        """, "sglang/srt/loading/__init__.py": "", "sglang/srt/loading/weights.py": f"""
        def weigh(loader, items):{_at(BODY.replace("self.", "loader."), 12)}
        """}
    assert _moves(tmp_path, before, after) == {
        "Loader.weigh": ("function, callers rewritten", "sglang.srt.loading.weights.weigh", False,
                         "Loader (sglang/srt/loading/loader.py)")}


def test_a_class_renamed_with_its_methods_is_no_move(tmp_path):
    before = {"sglang/srt/a.py": f"""
        class Packer:
            def weigh(self, items):{_at(BODY)}
            def pack(self, items):{_at(BODY.replace("continue", "break"))}
            def unpack(self, items):{_at(BODY.replace("len(str(item))", "hash(item)"))}
        """}
    after = {"sglang/srt/a.py": before["sglang/srt/a.py"].replace("class Packer", "class BatchPacker")}
    assert _moves(tmp_path, before, after) == {}


PACKER = f"""
    class Packer:
        def __init__(self, scale, offset):
            self.scale, self.offset = scale, offset

        def weigh(self, items):{_at(BODY, 12)}
    """


def test_a_class_renamed_with_its_one_method_its_old_name_kept_as_an_alias_is_no_move(tmp_path):
    before = {"sglang/srt/a.py": PACKER}
    renamed = PACKER.replace("class Packer", "class BatchPacker")
    for tail in ("", "\n\nclass Packer(BatchPacker):\n    pass\n"):
        after = {"sglang/srt/batching/packer.py": renamed + tail, "sglang/srt/batching/__init__.py": ""}
        assert _moves(tmp_path / str(len(tail)), before, after) == {}


def test_methods_pulled_up_into_a_new_base_the_class_keeps_methods_of_its_own_are_moves(tmp_path):
    # the same new class holding them, but the old class is still a class of its own: a pull-up
    # (its one-line `__init__` too: the class inherits it from the base where it is new)
    before = {"sglang/srt/a.py": PACKER + """
        def label(self):
            return "packer"
    """}
    after = {"sglang/srt/a.py": PACKER.replace("class Packer", "class PackerBase") + """

    class Packer(PackerBase):
        def label(self):
            return "packer"
    """}
    assert set(_moves(tmp_path, before, after)) == {"Packer.weigh", "Packer.__init__"}


def test_methods_moved_into_a_new_class_the_old_one_names_are_moves(tmp_path):
    # the old class is left naming the new one (`adapter_cls = PackerAdapter`): not a rename
    before = {"sglang/srt/a.py": PACKER}
    after = {"sglang/srt/a.py": PACKER.replace("class Packer", "class PackerAdapter") + """

    class Packer:
        adapter_cls = PackerAdapter
    """}
    assert set(_moves(tmp_path, before, after)) == {"Packer.weigh"}


def test_a_method_that_grew_while_a_piece_of_it_went_into_a_helper_did_not_leave(tmp_path):
    before = {"sglang/srt/a.py": PACKER}
    after = {"sglang/srt/a.py": f"""
    def _weigh_items(items, scale):{_at(BODY.replace("self.scale", "scale").replace(" - self.offset", ""), 8)}

    class Packer:
        def __init__(self, scale, offset):
            self.scale, self.offset = scale, offset

        def weigh(self, items, videos=None):
            total = _weigh_items(items, self.scale)
            if videos is not None:
                for index, video in enumerate(videos):
                    if video is None or not video.frames:
                        continue
                    total += index * self.scale + len(video.frames) * self.frame_cost
            if self.audio_cost and videos:
                for clip in videos:
                    total += sum(track.samples * self.audio_cost for track in clip.tracks if track.enabled)
            self.history.append((len(items), total))
            self.last_total = total
            return total - self.offset
    """}
    assert _moves(tmp_path, before, after) == {}


def test_a_method_pulled_up_goes_to_the_base_named_as_it_was_not_to_a_closer_look_alike(tmp_path):
    before = {"sglang/srt/a.py": f"""
    class PackerBase:
        def label(self):
            return "base"


    class Packer(PackerBase):
        def weigh(self, items):{_at(BODY, 12)}
        def name(self):
            return "packer"
    """}
    after = {"sglang/srt/a.py": f"""
    class PackerBase:
        def label(self):
            return "base"

        def weigh(self, items):{_at(BODY.replace("len(str(item))", "len(repr(item))"), 12)}

    class Packer(PackerBase):
        def name(self):
            return "packer"
    """, "sglang/srt/b.py": f"""
    class Sizer:
        def size_of(self, items):{_at(BODY, 12)}
    """}
    assert _moves(tmp_path, before, after) == {"Packer.weigh": ("superclass", "sglang.srt.a.PackerBase.weigh", False, None)}


def test_an_override_dropped_for_the_base_s_unchanged_method_is_no_move(tmp_path):
    base = f"""
    class PackerBase:
        def weigh(self, items):{_at(BODY, 12)}
    """
    before = {"sglang/srt/base.py": base, "sglang/srt/a.py": f"""
    from sglang.srt.base import PackerBase


    class Packer(PackerBase):
        def weigh(self, items):{_at(BODY.replace("continue", "break"), 12)}
        def name(self):
            return "packer"
    """}
    after = {"sglang/srt/base.py": base + "\n    def label(self):\n        return 'base'\n", "sglang/srt/a.py": """
    from sglang.srt.base import PackerBase


    class Packer(PackerBase):
        def name(self):
            return "packer"
    """, "sglang/srt/b.py": f"""
    class Sizer:
        def weigh(self, items):{_at(BODY.replace("continue", "break"), 12)}
    """}
    assert _moves(tmp_path, before, after) == {}


def test_a_method_moved_to_a_new_class_while_its_class_keeps_its_others_is_a_move(tmp_path):
    before = {"sglang/srt/a.py": f"""
    class Packer:
        def weigh(self, items):{_at(BODY, 12)}
        def name(self):
            return "packer"
    """}
    after = {"sglang/srt/a.py": """
    class Packer:
        def name(self):
            return "packer"
    """, "sglang/srt/b.py": f"""
    class Sizer:
        def weigh(self, items):{_at(BODY, 12)}
    """}
    assert set(_moves(tmp_path, before, after)) == {"Packer.weigh"}


def test_a_method_defined_twice_is_its_last_definition(tmp_path):
    # the first `weigh` is dead code (the name holds the second); it is not a body that left
    twice = PACKER + f"""
        def weigh(self, items):
            return self.helper.weigh(items)
    """
    after = {"sglang/srt/a.py": twice + "\n    def size(self):\n        return self.scale\n", "sglang/srt/helper.py": f"""
    class Helper:
        def weigh(self, items):{_at(BODY, 12)}
    """}
    assert _moves(tmp_path, {"sglang/srt/a.py": twice}, after) == {}


DETECTOR = """
    class Base:
        def __init__(self, start, end, stream=False, tool="", force=False):
            self.start, self.end, self.stream, self.tool, self.force = start, end, stream, tool, force


    class Detector(Base):
        def __init__(self, stream_reasoning: bool = True, force_nonempty: bool = False):
            super().__init__("<think>", "</think>", stream=stream_reasoning, tool="<tool_call>")
            self._force_nonempty = force_nonempty
    """


def test_a_method_kept_with_a_small_edit_that_now_hands_its_parameters_on_did_not_leave(tmp_path):
    # `__init__` now passes `force_nonempty` on instead of storing it: nearly the old body, a thin
    # call by its shape; a new class's `__init__` like it is that class's code, not where it went
    kept = DETECTOR.replace('tool="<tool_call>")\n            self._force_nonempty = force_nonempty',
                            'tool="<tool_call>", force=force_nonempty)')
    other = DETECTOR.split("class Detector")[1].replace("(Base):", "class OtherDetector(Base):", 1) \
        .replace("<think>", "<reason>")
    after = {"sglang/srt/a.py": kept + "\n\n" + textwrap.indent(textwrap.dedent(other), "    ")}
    assert kept != DETECTOR
    assert _moves(tmp_path, {"sglang/srt/a.py": DETECTOR}, after) == {}


def test_a_mixin_replaced_by_a_component_its_user_holds(tmp_path):
    before = {"sglang/srt/cache.py": f"""
        class EventsMixin:
            def record_event(self, items):{_at(BODY)}
            def take_events(self, items):{_at(BODY.replace("continue", "break"))}


        class Cache(EventsMixin):
            def insert(self, items):
                return self.record_event(items)
        """}
    after = {"sglang/srt/cache.py": f"""
        class EventRecorder:
            def __init__(self, scale, offset):
                self.scale, self.offset = scale, offset

            def record(self, items):{_at(BODY)}
            def take(self, items):{_at(BODY.replace("continue", "break"))}


        class Cache:
            def __init__(self):
                self.events = EventRecorder(1, 0)

            def insert(self, items):
                return self.events.record(items)
        """}
    assert _moves(tmp_path, before, after) == {
        "EventsMixin.record_event": ("component", "Cache.events.record", False, "Cache (sglang/srt/cache.py)"),
        "EventsMixin.take_events": ("component", "Cache.events.take", False, "Cache (sglang/srt/cache.py)")}


def test_a_delegation_that_keeps_a_guard_and_a_file_that_grew(tmp_path):
    before = {"sglang/srt/tree.py": f"""
        class Tree:
            def __init__(self):
                self.disabled = False

            def match(self, items):{_at(BODY)}
        """}
    after = {"sglang/srt/tree.py": f"""
        class TreeCore:
            def __init__(self, scale, offset):
                self.scale, self.offset = scale, offset

            def match(self, items):{_at(BODY)}

        class Tree:
            def __init__(self):
                self.disabled = False
                self.core = TreeCore(1, 0)

            def match(self, items):
                if self.disabled:
                    return 0
                return self.core.match(items)

            def grown(self):
                return [1, 2, 3]
        """}
    assert _moves(tmp_path, before, after) == {"Tree.match": ("component", "Tree.core.match", True, None)}


def test_a_rename_in_place_is_not_taken_for_a_sibling_s_renamed_copy(tmp_path):
    sibling = BODY.replace("self.offset", "self.offset + 1")
    before = {"sglang/srt/backends.py": f"""
        class TritonBackend:
            def prepare(self, items):{_at(BODY)}

        class TorchBackend:
            def prepare(self, items):{_at(sibling)}
        """}
    after = {"sglang/srt/backends.py": f"""
        class TritonBackend:
            def prepare_batch(self, items):{_at(BODY)}

        class TorchBackend:
            def prepare_batch(self, items):{_at(sibling)}
        """}
    assert _moves(tmp_path, before, after) == {}


def test_a_short_body_needs_more_than_a_look_alike(tmp_path):
    before = {"sglang/srt/a.py": """
        class Session:
            def release(self, node):
                node.lock_ref -= 1
                return node.lock_ref == 0
        """}
    after = {"sglang/srt/a.py": """
        class Session:
            pass
        """, "sglang/srt/b.py": """
        def release_node(node):
            node.lock_ref -= 1
            return node.lock_ref == 0
        """}
    assert _moves(tmp_path, before, after) == {}
    calls = after | {"sglang/srt/a.py": """
        from sglang.srt.b import release_node


        class Session:
            def close(self, node):
                return release_node(node)
        """}
    with_a_caller = {"sglang/srt/a.py": """
        class Session:
            def release(self, node):
                node.lock_ref -= 1
                return node.lock_ref == 0

            def close(self, node):
                return self.release(node)
        """}
    assert _moves(tmp_path / "2", with_a_caller, calls) == {
        "Session.release": ("function, callers rewritten", "sglang.srt.b.release_node", False, None)}


def test_a_body_merged_into_a_function_that_existed_is_found_through_the_delegation(tmp_path):
    before = {"sglang/srt/a.py": f"""
        from sglang.srt.lora import manager


        class Runner:
            def load_adapter(self, items):{_at(BODY)}
        """, "sglang/srt/lora/__init__.py": "", "sglang/srt/lora/manager.py": """
        def load_adapter(runner, items):
            return None
        """}
    after = {"sglang/srt/a.py": """
        from sglang.srt.lora import manager


        class Runner:
            def load_adapter(self, items):
                return manager.load_adapter(self, items)
        """, "sglang/srt/lora/__init__.py": "", "sglang/srt/lora/manager.py": f"""
        def load_adapter(self, items):{_at(BODY, 12)}
        """}
    assert _moves(tmp_path, before, after) == {
        "Runner.load_adapter": ("function", "sglang.srt.lora.manager.load_adapter", True, None)}


def test_a_method_that_now_calls_a_new_function_with_many_arguments_left_its_body_there(tmp_path):
    # not a thin delegation, not shorter: the call spreads its arguments over many lines
    before = {"sglang/srt/a.py": f"""
        class Worker:
            def make_input(self, items):{_at(BODY)}
        """}
    after = {"sglang/srt/a.py": f"""
        def make_input(items, scale, offset):{_at(BODY.replace("self.", ""), 12)}

        class Worker:
            def make_input(self, items):
                return make_input(
                    items,
                    scale=self.scale,
                    offset=self.offset,
                )
        """}
    assert _moves(tmp_path, before, after) == {
        "Worker.make_input": ("function", "sglang.srt.a.make_input", True, None)}


def test_a_call_the_method_made_before_is_no_delegation_to_it(tmp_path):
    # forward called self.backend.forward before too and keeps code of its own (a guard): it is
    # taken to stay (on the releases such methods had kept their work); a thin delegation would
    # have moved
    body = _at(BODY + "self.backend.forward(items)\n")
    before = {"sglang/srt/a.py": f"""
        class Hybrid:
            def forward(self, items):{body}
        """}
    after = {"sglang/srt/a.py": f"""
        class Backend:
            def forward(self, items):{_at(BODY)}

        class Hybrid:
            def forward(self, items):
                if not items:
                    return 0
                self.backend.forward(items)
                return 0
        """}
    assert _moves(tmp_path, before, after) == {}
    thin = {"sglang/srt/a.py": after["sglang/srt/a.py"].replace("if not items:\n                    return 0\n                ", "")}
    assert _moves(tmp_path / "thin", before, thin) == {
        "Hybrid.forward": ("component", "Hybrid.backend.forward", True, None)}


def test_a_mixin_user_in_another_file_that_only_dropped_the_base(tmp_path):
    mixin = f"""
        class EventsMixin:
            def record_event(self, items):{_at(BODY)}
        """
    before = {"sglang/srt/events.py": mixin, "sglang/srt/cache.py": """
        from sglang.srt.events import EventsMixin


        class Cache(EventsMixin):
            def insert(self, items):
                return self.record_event(items)
        """}
    after = {"sglang/srt/events.py": f"""
        class EventRecorder:
            def record(self, items):{_at(BODY)}
        """, "sglang/srt/cache.py": """
        from sglang.srt.events import EventRecorder


        class Cache:
            def insert(self, items):
                return self.events.record(items)
        """}
    assert _moves(tmp_path, before, after) == {
        "EventsMixin.record_event": ("component", "Cache.events.record", False, "Cache (sglang/srt/cache.py)")}


def test_a_class_moved_file_with_most_methods_given_to_a_component(tmp_path):
    methods = "".join(f"""
            def step_{i}(self, items):{_at(BODY.replace("index *", f"index * {i} *"))}""" for i in range(4))
    before = {"sglang/srt/encode_server.py": f"""
        class Encoder:{methods}

            def serve(self):
                return self.step_0([])
        """}
    after = {"sglang/srt/encoder/__init__.py": "", "sglang/srt/encoder/preprocessor.py": f"""
        class Preprocessor:{methods}
        """, "sglang/srt/encoder/server.py": """
        from sglang.srt.encoder.preprocessor import Preprocessor


        class Encoder:
            def __init__(self):
                self.pre = Preprocessor()

            def serve(self):
                return self.pre.step_0([])
        """}
    found = _moves(tmp_path, before, after)
    assert found == {f"Encoder.step_{i}": ("component", f"Encoder.pre.step_{i}", False,
                                           "Encoder (sglang/srt/encoder/server.py)") for i in range(4)}


def test_a_move_out_of_a_class_that_moved_file_is_checked_where_each_version_has_the_class(tmp_path):
    from equivalence.cli import main
    import json

    before = {"sglang/srt/old_home.py": f"""
        class Loader:
            def __init__(self, scale, offset):
                self.scale, self.offset = scale, offset

            def total(self, items):
                return self.weigh(items) + 1

            def weigh(self, items):{_at(BODY)}
        """}
    after = {"sglang/srt/loading/__init__.py": "", "sglang/srt/loading/loader.py": """
        from sglang.srt.loading.weights import weigh


        class Loader:
            def __init__(self, scale, offset):
                self.scale, self.offset = scale, offset

            def total(self, items):
                return weigh(self, items) + 1
        """, "sglang/srt/loading/weights.py": f"""
        def weigh(loader, items):{_at(BODY.replace("self.", "loader."), 12)}
        """}
    out = tmp_path / "r.json"
    code = main([str(_tree(tmp_path / "b", before)), str(_tree(tmp_path / "a", after)), "--json", str(out)])
    report = json.loads(out.read_text())
    (move,) = report["moves"]
    assert (code, move["from"], move["verdict"], move["class_now"]) == (
        0, "Loader.weigh", "equivalent", "Loader (sglang/srt/loading/loader.py)")


def test_the_edits_at_the_call_sites_are_named_apart(tmp_path):
    before = {"sglang/srt/a.py": f"""
        class Runner:
            def initialize(self, items):
                self.ready = True
                return self.weigh(items)

            def report(self, items):
                return self.weigh(items[1:])

            def weigh(self, items):{_at(BODY)}
        """}
    after = {"sglang/srt/a.py": f"""
        def weigh(runner, items):{_at(BODY.replace("self.", "runner."), 12)}

        class Runner:
            def initialize(self, items):
                self.ready = True
                return self.init_weights(items)

            def init_weights(self, items):
                return weigh(self, items)

            def report(self, items):
                return weigh(self, items[2:])
        """}
    (move,) = find_moves(_tree(tmp_path / "before", before), _tree(tmp_path / "after", after))
    assert [(e.file, e.line, e.before, e.what) for e in move.call_edits] == [
        ("sglang/srt/a.py", 17, "sglang/srt/a.py:5", "call site moved: from Runner.initialize to Runner.init_weights"),
        ("sglang/srt/a.py", 20, "sglang/srt/a.py:8", "arguments changed in Runner.report: (items[1:]) -> (items[2:])")]


def test_a_short_body_rewritten_around_its_old_tokens_under_its_name(tmp_path):
    # every old token is still there, in order, but wrapped in new calls: too little alike by
    # difflib's ratio alone, enough with the name kept and the old body covered
    before = {"sglang/srt/args.py": """
        class Args:
            def _handle_hpu(self):
                if self.device == "hpu":
                    self.attention_backend = "torch_native"
                    self.sampling_backend = "pytorch"
        """}
    after = {"sglang/srt/args.py": """
        class Args:
            pass
        """, "sglang/srt/hooks.py": """
        def handle_hpu(args):
            cfg = resolving_view(args)
            if cfg.device == "hpu":
                declare(args, "_handle_hpu", attention_backend="torch_native")
                declare(args, "_handle_hpu", sampling_backend="pytorch")
        """}
    assert _moves(tmp_path, before, after) == {
        "Args._handle_hpu": ("function, callers rewritten", "sglang.srt.hooks.handle_hpu", False, None)}


def test_code_does_not_move_into_a_test_that_copies_it(tmp_path):
    before = {"sglang/srt/a.py": f"""
        class Cache:
            def block(self, items):{_at(BODY)}
        """}
    after = {"sglang/srt/a.py": """
        class Cache:
            def block_all(self, items):
                return [len(items)]
        """, "sglang/test/__init__.py": "", "sglang/test/test_cache.py": f"""
        def reference_block(self, items):{_at(BODY, 12)}
        """}
    assert _moves(tmp_path, before, after) == {}


def test_a_method_that_grew_and_now_calls_its_name_on_a_part_stays(tmp_path):
    before = {"sglang/srt/a.py": f"""
        class Model:
            def capture(self, items):{_at(BODY)}
        """}
    after = {"sglang/srt/a.py": f"""
        class Inner:
            def capture(self, items):{_at(BODY.replace("total - self.offset", "total"))}

        class Model:
            def capture(self, items):
                if not self.enabled:
                    return None{_at(BODY)}
                self.inner.capture(items)
        """}
    assert _moves(tmp_path, before, after) == {}


def test_body_tokens_read_a_view_of_the_instance_and_the_instance_handed_on_as_the_instance():
    import ast

    from pysource.moves.bodies import tokens

    def read(src: str) -> str:
        return " ".join(tokens(ast.parse(textwrap.dedent(src)).body[0]))

    method = read("""
        def _handle_backend(self):
            if self.grammar_backend is None:
                self._declare(self, "xgrammar", owner=self)
        """)
    hook = read("""
        def handle_backend(server_args):
            from sglang.srt import views
            cfg = views.resolving_view(server_args)
            if cfg.grammar_backend is None:
                declare(server_args, "xgrammar")
        """)
    assert method == hook == "if grammar_backend is None : declare ( ' xgrammar ' )"
    # a keyword-only parameter read as an instance (three attributes) stands for it; a local
    # caching an attribute of it (`server_args = runner.server_args`) reads as the attribute
    assert read("""
        def build(*, runner, resolved):
            server_args = runner.server_args
            return make(server_args.size, runner.device, runner.gpu_id, resolved, owner=runner)
        """) == "return make ( server_args . size , device , gpu_id , resolved )"
    # a local computed from the instance but never read through is no view
    assert read("""
        def count(self):
            n = len(self)
            return n + 1
        """) == "n = len ( ) return n + 1"


def test_the_destination_is_the_function_the_wrapper_calls_with_the_helpers_it_calls(tmp_path):
    # the body was split: the wrapper calls `get_backend`, which calls two new helpers holding
    # the old code; the move goes to what the wrapper calls, not to the helper most like it
    before = {"sglang/srt/a.py": f"""
        class Runner:
            def _get_backend(self, items):{_at(BODY)}{_at("self.kind = 'mixed' if total > 2 else 'plain'")}
                return self.kind
        """}
    after = {"sglang/srt/a.py": """
        from sglang.srt.setup import get_backend


        class Runner:
            def _get_backend(self, items):
                return get_backend(runner=self, items=items)
        """, "sglang/srt/setup.py": f"""
        def get_backend(*, runner, items):
            total = _weigh(runner, items)
            return _kind_of(total)


        def _weigh(self, items):{_at(BODY, 12)}

        def _kind_of(total):
            return 'mixed' if total > 2 else 'plain'
        """}
    assert _moves(tmp_path, before, after) == {
        "Runner._get_backend": ("function", "sglang.srt.setup.get_backend", True, None)}


def test_a_name_that_now_holds_a_wrapper_around_the_old_body_is_where_the_method_went(tmp_path):
    # Runner.load logged around manager.load; now manager.load logs around manager._load, and
    # Runner.load only delegates: the method's body went into the component's method of its name
    logged = """
        logger.info(f"loading starts: {ref} on {self.device}")
        result = %s(ref)
        logger.info(f"loading completes: {ref} on {self.device}")
        return result
        """
    manager_before = f"""
        class Manager:
            def load(self, ref):{_at(BODY.replace("items", "ref"))}
        """
    before = {"sglang/srt/a.py": f"""
        from sglang.srt.manager import Manager


        class Runner:
            def __init__(self):
                self.manager = Manager()

            def load(self, ref):{_at(textwrap.dedent(logged % "self.manager.load"))}
        """, "sglang/srt/manager.py": manager_before}
    after = {"sglang/srt/a.py": """
        from sglang.srt.manager import Manager


        class Runner:
            def __init__(self):
                self.manager = Manager()

            def load(self, ref):
                return self.manager.load(ref)
        """, "sglang/srt/manager.py": f"""
        class Manager:
            def load(self, ref):{_at(textwrap.dedent(logged % "self._load"))}
            def _load(self, ref):{_at(BODY.replace("items", "ref"))}
        """}
    assert _moves(tmp_path, before, after) == {
        "Runner.load": ("component", "Runner.manager.load", True, None)}


def test_a_tiny_body_counts_when_its_moved_caller_now_calls_a_function_of_its_name(tmp_path):
    handlers = """
            def _handle_backend(self):
                if self.backend is None:
                    self.backend = "xgrammar"

            def _handle_port(self):
                if self.port is None:
                    self.port = 30000
        """
    pipeline = f"""
            def _run_pipeline(self):{_at(BODY)}
                self._handle_backend()
                self._handle_port()
                return total
        """
    before = {"sglang/srt/args.py": f"""
        class Args:
            def __post_init__(self):
                self._run_pipeline()
        {pipeline}{handlers}"""}
    after = {"sglang/srt/args.py": """
        class Args:
            def __post_init__(self):
                from sglang.srt.hooks import run_pipeline
                run_pipeline(self)
        """, "sglang/srt/hooks.py": f"""
        def run_pipeline(args):{_at(BODY.replace("self.", "args."), 12)}
            handle_backend(args)
            return total


        def handle_backend(args):
            cfg = resolving_view(args)
            if cfg.backend is None:
                declare(args, backend="xgrammar")


        def handle_port(args):
            return 30000
        """}
    assert _moves(tmp_path, before, after) == {
        "Args._run_pipeline": ("function, callers rewritten", "sglang.srt.hooks.run_pipeline", False, None),
        "Args._handle_backend": ("function, callers rewritten", "sglang.srt.hooks.handle_backend", False, None)}


def test_a_tiny_method_its_caller_took_along_into_a_component_moved_there_too(tmp_path):
    tiny = """
            def _load_audios(self, items):
                return self._load(items, "audio")
        """
    process = f"""
            def process(self, items):{_at(BODY)}
                return self._load_audios(items)
        """
    before = {"sglang/srt/enc.py": f"""
        class Encoder:
            def __init__(self):
                self.scale = 2
        {process}{tiny}"""}
    after = {"sglang/srt/enc.py": """
        from sglang.srt.prep import Preprocessor


        class Encoder:
            def __init__(self):
                self.preprocessor = Preprocessor()

            def handle(self, items):
                return self.preprocessor.process(items)
        """, "sglang/srt/prep.py": f"""
        class Preprocessor:
            def __init__(self):
                self.scale = 2
        {process}{tiny}"""}
    assert _moves(tmp_path, before, after) == {
        "Encoder.process": ("component", "Encoder.preprocessor.process", False, None),
        "Encoder._load_audios": ("component", "Encoder.preprocessor._load_audios", False, None)}


def test_a_property_whose_readers_in_its_file_now_call_a_function_moved_there(tmp_path):
    # the readers are in another class of the file (`args.is_joiner`, no call): they now call
    # joiner_of(view(args)), which holds the property's body read through a view
    prop = """
            @property
            def is_joiner(self) -> bool:
                cfg = resolving_view(self)
                return cfg.join_mode in ("scale", "recover")
        """
    reader = """
        class Ports:
            @staticmethod
            def init_new(args):
                if %s:
                    return 1
                return 0
        """
    before = {"sglang/srt/args.py": f"""
        class Args:
            join_mode = "none"
        {prop}
        {reader % "args.is_joiner"}"""}
    after = {"sglang/srt/args.py": f"""
        from sglang.srt.overrides import joiner_of


        class Args:
            join_mode = "none"

        {reader % "joiner_of(resolving_view(args))"}""", "sglang/srt/overrides.py": """
        def joiner_of(cfg) -> bool:
            return cfg.join_mode in ("scale", "recover")
        """}
    assert _moves(tmp_path, before, after) == {
        "Args.is_joiner": ("function, callers rewritten", "sglang.srt.overrides.joiner_of", False, None)}


def test_a_body_deduplicated_into_a_function_that_existed_unchanged(tmp_path):
    # the module already had the function, a copy of the method's body; the method now delegates
    function = f"""
        def weigh_of(cfg, items):{_at(BODY.replace("self.", "cfg."), 12)}
        """
    before = {"sglang/srt/args.py": f"""
        class Args:
            def weigh(self, items):{_at(BODY)}
        """, "sglang/srt/overrides.py": function}
    after = {"sglang/srt/args.py": """
        from sglang.srt.overrides import weigh_of


        class Args:
            def weigh(self, items):
                return weigh_of(self, items)
        """, "sglang/srt/overrides.py": "import os\n" + textwrap.dedent(function) + "\n\ndef other():\n    return os.sep\n"}
    assert _moves(tmp_path, before, after) == {
        "Args.weigh": ("function", "sglang.srt.overrides.weigh_of", True, None)}


def test_a_copy_that_existed_unchanged_is_no_destination_for_a_call_newly_made_to_it(tmp_path):
    # the method is gone and its caller now calls the module's older copy of the body: only what
    # a method left behind calls may be a copy that existed as it was (here nothing was left)
    function = textwrap.dedent(f"""
        def weigh_of(cfg, items):{_at(BODY.replace("self.", "cfg."), 12)}
        """)
    before = {"sglang/srt/args.py": f"""
        class Args:
            def run(self, items):
                return self.weigh(items) + 1

            def weigh(self, items):{_at(BODY)}
        """, "sglang/srt/overrides.py": function}
    after = {"sglang/srt/args.py": """
        from sglang.srt.overrides import weigh_of


        class Args:
            def run(self, items):
                return weigh_of(self, items) + 1
        """, "sglang/srt/overrides.py": "import os\n" + function + "\n\ndef other():\n    return os.sep\n"}
    assert _moves(tmp_path, before, after) == {}


def test_a_component_built_by_a_factory_holds_the_class_the_factory_returns(tmp_path):
    # `self.core = create_core(...)` and `self.budget = pool.create_budget(...)`: the classes
    # holding the moved methods are named only where the factories build them
    before = {"sglang/srt/cache.py": f"""
        class Cache:
            def __init__(self, pool):
                self.scale, self.offset = 2, 1

            def _walk(self, items):{_at(BODY)}
            def _weigh(self, items):{_at(BODY.replace("len(str(item))", "hash(item)"))}
        """}
    after = {"sglang/srt/cache.py": """
        from sglang.srt.core import create_core


        class Cache:
            def __init__(self, pool):
                self.core = create_core("radix")
                self.budget = pool.create_budget(self)

            def walk(self, items):
                return self.core.run(items) + self.budget.left(items)
        """, "sglang/srt/core.py": f"""
        class CoreInterface:
            pass


        class Core(CoreInterface):
            def _walk(self, items):{_at(BODY)}

        def create_core(name) -> CoreInterface:
            return FACTORIES[name]()


        class Budget:
            def _weigh(self, items):{_at(BODY.replace("len(str(item))", "hash(item)"))}

        class Pool:
            def create_budget(self, cache):
                return Budget()
        """}
    assert _moves(tmp_path, before, after) == {
        "Cache._walk": ("component", "Cache.core._walk", False, None),
        "Cache._weigh": ("component", "Cache.budget._weigh", False, None)}


def test_a_body_merged_into_its_caller_s_new_function_calling_its_helper_by_a_new_name(tmp_path):
    """The method is gone; the one method that called it now calls a new function holding its
    body rewritten: each call of its helper is a call of the helper's new name with one more
    argument, a loop became a comprehension. Aligned, the old name always faces the new one: a
    replacement (RefactoringMiner's), so the old body is found there in order."""
    before = {"sglang/srt/runner.py": """
        class Runner:
            def setup(self):
                self.prepare_capture()
                if self.device == "cuda":
                    self.init_blas()
                    self.init_backend()
                else:
                    self.init_backend()

            def init_backend(self):
                if self.args.multiplex:
                    self.backend = self._make_backend(fresh_workspace=True)
                    self.decode_group = []
                    for _ in range(self.args.group_count):
                        self.decode_group.append(self._make_backend())
                    self.decode_backend = self.decode_group[0]
                elif self.args.overlap and not self.is_draft:
                    self.backend = Overlapped.init_new(self._make_backend)
                else:
                    self.backend = self._make_backend()
                self.backend.prefill_name = self.prefill_name
                self.backend.decode_name = self.decode_name

            def _make_backend(self, fresh_workspace=False):
                return Backend(self.args.kind, fresh_workspace)
        """}
    after = {"sglang/srt/runner.py": """
        from sglang.srt.backend_setup import build_backends


        class Runner:
            def setup(self):
                self.prepare_capture()
                built = build_backends(runner=self)
                self.backend = built.backend
                self.decode_group = built.decode_group
        """, "sglang/srt/backend_setup.py": """
        def build_backends(*, runner):
            args = runner.args
            if runner.device == "cuda":
                init_blas()
            names = resolve_names(args.prefill_kind, args.decode_kind, is_draft=runner.is_draft, draft=args.draft_kind)
            if args.multiplex:
                backend = make_resolved(runner=runner, names=names, fresh_workspace=True)
                decode_group = [make_resolved(runner=runner, names=names) for _ in range(args.group_count)]
                decode_backend = decode_group[0]
            elif args.overlap and not runner.is_draft:
                backend = Overlapped.init_new(lambda: make_resolved(runner=runner, names=names))
                decode_backend, decode_group = None, []
            else:
                backend = make_resolved(runner=runner, names=names)
                decode_backend, decode_group = None, []
            if runner.device == "npu" and runner.args.local_memory > 0 and not runner.is_draft:
                reserve_local_memory(runner.device, runner.gpu_id, group().rank, group().size)
            backend.prefill_name = names.prefill
            backend.decode_name = names.decode
            return Built(backend=backend, decode_backend=decode_backend, decode_group=decode_group,
                         prefill_name=names.prefill, decode_name=names.decode)


        def make_resolved(*, runner, names, fresh_workspace=False):
            return Backend(runner.args.kind, names, fresh_workspace)
        """}
    assert _moves(tmp_path, before, after)["Runner.init_backend"] == (
        "function, callers rewritten", "sglang.srt.backend_setup.build_backends", False, None)


SENDER = """
    class {name}Sender{base}:
        def __init__(self, manager, room):
            self.manager, self.room = manager, room
            self.sent, self.failed = 0, False
            self.started = manager.clock()

        def poll(self):
            if self.failed:
                return "failed"
            return self.manager.status(self.room)

        def pending(self):
            return self.sent
{own}"""


def test_duplicated_methods_pulled_up_into_a_common_base_are_moves_of_each_class(tmp_path):
    # each sibling's copy moved, tiny ones and `__init__` too: the class inherits it from its base
    own = """
        def send(self, chunk):
            self.sent += self.manager.push(self.room, chunk, kind="{name}")
"""
    before = {"sglang/srt/senders.py": "".join(
        SENDER.format(name=n, base="", own=own.format(name=n)) for n in ("Fast", "Slow"))}
    after = {"sglang/srt/senders.py": SENDER.format(name="Common", base="", own="") + "".join(
        f"""
    class {n}Sender(CommonSender):{own.format(name=n)}""" for n in ("Fast", "Slow"))}
    found = _moves(tmp_path, before, after)
    assert found == {f"{n}Sender.{m}": ("superclass", f"sglang.srt.senders.CommonSender.{m}", False, None)
                     for n in ("Fast", "Slow") for m in ("__init__", "poll", "pending")}


def test_a_method_dropped_for_a_new_base_s_method_of_another_body_is_no_move(tmp_path):
    # the base's new `poll` and `pending` are not the class's: its overrides were dropped, their bodies went nowhere
    before = {"sglang/srt/senders.py": SENDER.format(name="Fast", base="", own="")}
    after = {"sglang/srt/senders.py": """
    class CommonSender:
        def poll(self):
            raise NotImplementedError(f"{type(self).__name__} cannot poll a room")

        def pending(self):
            return len(self.queue) + self.backlog.qsize()


    class FastSender(CommonSender):
        def __init__(self, manager, room):
            self.manager, self.room = manager, room
            self.sent, self.failed = 0, False
            self.started = manager.clock()
    """}
    assert _moves(tmp_path, before, after) == {}
