"""The extraction fixture of `fixtures/methods/args` (a small sglang-shaped ServerArgs), its
methods moved by hand the way a careful maintainer would (never by our codemod, which other
tests check) into `sglang.srt.arg_groups.hooks`: `def NAME(*, server_args, PARAMS)` (without
`server_args` when the method does not use the instance), the method replaced by a wrapper
returning `hooks.NAME(...)`."""

from __future__ import annotations

import ast
import re
import shutil
import textwrap
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "methods" / "args"
SOURCE = "sglang/srt/server_args.py"
HOOKS = "sglang/srt/arg_groups/hooks.py"
IMPORTS = "import importlib.util\n\nimport torch\n\nfrom sglang.srt.cuda_graph_config import Backend\n"
GLOBALS = "\nDEBUG_RESERVE = False\n"


def original(dest: Path) -> Path:
    shutil.copytree(FIXTURE, dest)
    return dest


def moved(dest: Path, name: str, edit: tuple[str, str] = ("", ""), site_edit: tuple[str, str] = ("", "")) -> Path:
    """The fixture at `dest` with ServerArgs.NAME moved to the hooks module; then `edit` (old, new)
    in the moved function's text and `site_edit` in the class's module."""
    shutil.copytree(FIXTURE, dest)
    source = dest / SOURCE
    text = source.read_text()
    method = next(n for n in ast.parse(text).body[-1].body if isinstance(n, ast.FunctionDef) and n.name == name)
    lines = text.splitlines(keepends=True)
    start, end = method.lineno - 1, method.end_lineno
    params = [a.arg for a in method.args.args[1:]]
    body = textwrap.dedent("".join(lines[method.body[0].lineno - 1:end]))
    uses_self = re.search(r"\bself\b", body) is not None
    body = re.sub(r"\bself\b", "server_args", body)
    signature = ", ".join((["server_args"] if uses_self else []) + params)
    returns = f" -> {ast.unparse(method.returns)}" if method.returns else ""
    function = f"def {name}(*, {signature}){returns}:\n" + textwrap.indent(body, "    ")
    hooks = dest / HOOKS
    hooks_text = hooks.read_text().replace("import logging\n", "import logging\n" + IMPORTS, 1)
    hooks.write_text(hooks_text + GLOBALS + "\n\n" + function.replace(*edit))
    passed = ", ".join((["server_args=self"] if uses_self else []) + [f"{p}={p}" for p in params])
    own = "".join(f", {p}" for p in params)
    wrapper = f"    def {name}(self{own}){returns}:\n        return hooks.{name}({passed})\n"
    text = "".join(lines[:start] + [wrapper] + lines[end:])
    text = text.replace("from sglang.srt.cuda_graph_config import Backend\n",
                        "from sglang.srt.arg_groups import hooks\nfrom sglang.srt.cuda_graph_config import Backend\n")
    source.write_text(text.replace(*site_edit))
    return dest
