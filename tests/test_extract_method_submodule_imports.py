"""The codemod keeps every submodule import the moved code needs: `importlib.util.find_spec` needs
`import importlib.util`, which the source module has besides `import importlib` (0.5.18's
validate_transfer_engine got `import importlib` only; the harness rightly said divergent)."""

from __future__ import annotations

import shutil

import pytest

from codemods.extract_method import MethodSpec, refactor, write_plan
from tests.args_trees import FIXTURE, SOURCE

TARGET = "sglang/srt/arg_groups/transfer_hook.py"


@pytest.mark.parametrize("existing", ["", "import importlib\n", "import importlib.util\n"])
def test_the_submodule_the_moved_code_reads_is_imported(tmp_path, existing):
    root = shutil.copytree(FIXTURE, tmp_path / "tree")
    source = root / SOURCE
    source.write_text(source.read_text().replace("import importlib.util\n", "import importlib\nimport importlib.util\n"))
    if existing:
        (root / TARGET).write_text(f'"""Transfer hooks."""\n\n{existing}')
    spec = MethodSpec("ServerArgs", "transfer_available", "sglang.srt.arg_groups.transfer_hook", pass_self="server_args")
    write_plan(refactor(root, spec))
    imports = [line for line in (root / TARGET).read_text().splitlines() if line.startswith("import importlib")]
    assert "import importlib.util" in imports, imports
    assert len(imports) == len(set(imports))
