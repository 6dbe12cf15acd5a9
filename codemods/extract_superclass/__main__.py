"""Command line: python -m codemods.extract_superclass PATH CLASS TARGET.MODULE.BASE --methods M1,M2,...
[--state A,B] (`kind.KIND`)."""

from __future__ import annotations

import sys

from codemods.extract_superclass.kind import KIND

main = KIND.main

if __name__ == "__main__":
    sys.exit(main())
