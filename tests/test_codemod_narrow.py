"""Step 4 on the moved function alone: every `server_args.kv_cache_dtype` read is narrowed,
however deep in an expression; any other use of `server_args` is refused with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.extract_kv_dtype import RECIPE, Refusal
from codemods.core.formatting import Style
from codemods.extract_method.steps.narrow_param import narrow_function

HEAD = "def configure_kv_cache_dtype(*, server_args: ServerArgs, model_dtype):\n    x = None\n"
PATH = Path("kv_cache_dtype.py")


def narrow(body: str) -> str:
    return narrow_function(HEAD + body, PATH, RECIPE, Style(enabled=False))


def test_reads_nested_in_longer_chains_are_narrowed():
    out = narrow('    if server_args.kv_cache_dtype.lower().startswith("int8_"):\n        x = 1\n'
                 "    elif f(server_args.kv_cache_dtype).y:\n        x = 2\n"
                 "    return (server_args.kv_cache_dtype)[0], x\n")
    assert "server_args." not in out and "server_args:" not in out
    assert 'server_args_kv_cache_dtype.lower().startswith("int8_")' in out
    assert "f(server_args_kv_cache_dtype).y" in out
    assert "server_args_kv_cache_dtype: str" in out


@pytest.mark.parametrize("body, line, why", [
    ("    x = server_args.tp_size\n", 3, "server_args used other than by reading server_args.kv_cache_dtype"),
    ("    x = 1\n    g(server_args)\n", 4, "server_args used other than"),
    ('    server_args.kv_cache_dtype += "x"\n', 3, "write to server_args.kv_cache_dtype"),
    ('    server_args.kv_cache_dtype = "x"\n', 3, "write to server_args.kv_cache_dtype"),
])
def test_other_uses_of_the_parameter_are_refused_with_their_line(body, line, why):
    with pytest.raises(Refusal) as exc:
        narrow(body)
    assert exc.value.line == line and why in str(exc.value)


def test_keyword_and_attribute_names_are_not_uses():
    out = narrow("    x = g(server_args=server_args.kv_cache_dtype, y=x.server_args)\n")
    assert "g(server_args=server_args_kv_cache_dtype, y=x.server_args)" in out
