"""Command line: python -m codemods.pull_up PATH BASE --members M1,M2,... [--init-tail] (`kind.KIND`)."""

from __future__ import annotations

import sys

from codemods.pull_up.kind import KIND

main = KIND.main

if __name__ == "__main__":
    sys.exit(main())
