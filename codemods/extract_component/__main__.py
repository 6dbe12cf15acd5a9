"""Command line: python -m codemods.extract_component PATH CLASS TARGET.MODULE.COMPONENT --methods M1,M2,...
--attr ATTR (`kind.KIND`)."""

from __future__ import annotations

import sys

from codemods.extract_component.kind import KIND

main = KIND.main

if __name__ == "__main__":
    sys.exit(main())
