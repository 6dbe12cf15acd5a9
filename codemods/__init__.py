"""LibCST codemods that reproduce mechanical sglang refactorings.

`core/` is the machinery every command shares (command line, change plan, the step runner,
writer, rendering, formatting, errors, git), `syntax/` the LibCST helpers, `checkout/` the
checkout-wide analysis and rewriting. Each refactoring kind is a folder with its analysis, its
steps and its `kind.py` (a `core.kind.Kind`: options, spec, plan, steps), registered in `KINDS`
below: `extract_method/` (`python -m codemods.extract_method`), with its presets under
`extract_method/presets/` (`kv_dtype`: sglang PR #31147, run as `python -m codemods.extract_kv_dtype`),
and `extract_component/` (`python -m codemods.extract_component`). docs/adding_a_kind.md says how
to add one.
"""

from pysource.commands import one_line_on_interrupt

one_line_on_interrupt(__name__, "interrupted; nothing was written")  # a Ctrl-C while a command imports

# The refactoring kinds, each `python -m codemods.NAME`: NAME -> the module whose KIND it is
# (imported when asked for, so that a command imports only its own kind).
KINDS = {
    "extract_method": "codemods.extract_method.kind",
    "extract_kv_dtype": "codemods.extract_kv_dtype.kind",
    "extract_component": "codemods.extract_component.kind",
    "extract_superclass": "codemods.extract_superclass.kind",
    "pull_up": "codemods.pull_up.kind",
}


def kind(name: str):
    """The registered kind `name` (a `core.kind.Kind`)."""
    from importlib import import_module

    return import_module(KINDS[name]).KIND
