"""LibCST codemods that reproduce mechanical sglang refactorings.

`core/` is the machinery every command shares (command line, change plan, writer, rendering,
formatting, errors, git), `syntax/` the LibCST helpers, `checkout/` the checkout-wide analysis
and rewriting. Each refactoring kind is a folder with its analysis and its steps:
`extract_method/` (`python -m codemods.extract_method`), with its presets under
`extract_method/presets/` (`kv_dtype`: sglang PR #31147, run as `python -m codemods.extract_kv_dtype`).
"""

from pysource.commands import one_line_on_interrupt

one_line_on_interrupt(__name__, "interrupted; nothing was written")  # a Ctrl-C while a command imports
