import sys

from equivalence.cli import main

sys.exit(main())
