"""pysource.receivers: a function imported inside a method types what it returns, as one imported
at module level does (0.5.23: `self.lora_manager, self.uno_lora_id = init_uno_lora_manager(self)`
after `from sglang.srt.speculative.uno_lora import init_uno_lora_manager` in the method, the
function annotated `-> tuple[LoRAManager, str]`)."""

from pathlib import Path

from pysource.checkout import Checkout
from pysource.receivers import Instance, Program

MAKERS = ("class Manager:\n    def load(self):\n        return 1\n\n\n"
          "def make(owner) -> tuple[Manager, str]:\n    return Manager(), 'x'\n")
RUNNER = ("class Runner:\n"
          "    def init(self):\n"
          "        from pkg.makers import make\n\n"
          "        self.manager, self.name = make(self)\n\n"
          "    def use(self):\n"
          "        return self.manager.load()\n")


def test_a_function_imported_in_the_method_types_its_result(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "makers.py").write_text(MAKERS)
    (tmp_path / "pkg" / "runner.py").write_text(RUNNER)
    program = Program(Checkout(tmp_path, tmp_path, "pkg"))
    assert program.attribute_type("pkg.runner.Runner", "manager") == frozenset([Instance("pkg.makers.Manager")])
    assert program.attribute_type("pkg.runner.Runner", "name") == frozenset([Instance("builtins.str")])
