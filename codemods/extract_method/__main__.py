"""Command line: python -m codemods.extract_method PATH CLASS.METHOD TARGET.MODULE [options] (`kind.KIND`)."""

from __future__ import annotations

import sys

from codemods.extract_method.kind import KIND

main = KIND.main

if __name__ == "__main__":
    sys.exit(main())
