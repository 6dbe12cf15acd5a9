"""Step 1 formats again (black) each statement of the code that stays where moved state comes to be
read through the component, a compound statement's header alone, and nothing else of the file."""

from __future__ import annotations

from textwrap import dedent, indent

from codemods.extract_component import refactor, write_plan
from tests.component_trees import RUNNER, copy_tree, spec

READER = indent(dedent('''\
    def busy_groups(self, prefix):
        if self._weights_send_group and len(self._weights_send_group) > 1 and prefix != "":
            return sorted(name for name in self._weights_send_group if name.startswith(prefix))
        x  =  1
        return list(self._weights_send_group)

    '''), "    ")

EXPECTED = indent(dedent('''\
    def busy_groups(self, prefix):
        if (
            self.weight_exporter._weights_send_group
            and len(self.weight_exporter._weights_send_group) > 1
            and prefix != ""
        ):
            return sorted(
                name
                for name in self.weight_exporter._weights_send_group
                if name.startswith(prefix)
            )
        x  =  1
        return list(self.weight_exporter._weights_send_group)

    '''), "    ")


def test_the_touched_statements_of_a_staying_reader_are_formatted_again(tmp_path):
    root = copy_tree(tmp_path / "t", {RUNNER: [("    def flush_cache(self) -> bool:\n",
                                                READER + "    def flush_cache(self) -> bool:\n")]})
    write_plan(refactor(root, spec(state=("_weights_send_group",)), steps=range(1, 2)))
    assert EXPECTED in (root / RUNNER).read_text()  # `x  =  1` untouched: not formatted


CLAUSES = indent(dedent('''\
    def error_group(self):
        try:
            pass
        except self._weights_send_group.get("error", ValueError):
            pass
        match self._weights_send_group:
            case {}:
                return 0
        return 1

    '''), "    ")


def test_a_touched_except_clause_or_match_subject_is_rewritten_and_left_as_it_is(tmp_path):
    root = copy_tree(tmp_path / "t", {RUNNER: [("    def flush_cache(self) -> bool:\n",
                                                CLAUSES + "    def flush_cache(self) -> bool:\n")]})
    write_plan(refactor(root, spec(state=("_weights_send_group",)), steps=range(1, 2)))
    text = (root / RUNNER).read_text()
    assert '        except self.weight_exporter._weights_send_group.get("error", ValueError):\n' in text
    assert "        match self.weight_exporter._weights_send_group:\n            case {}:\n" in text
