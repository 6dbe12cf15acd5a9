"""Command line: python -m codemods.extract_kv_dtype PATH [--steps A-B] [--dry-run] [--commit] [--no-format]
(`kind.KIND`)."""

from __future__ import annotations

import sys

from codemods.extract_kv_dtype.kind import KIND

main = KIND.main

if __name__ == "__main__":
    sys.exit(main())
