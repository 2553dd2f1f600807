"""Entry point of ``python -m autograd_notes``."""

import sys

from .records.cli import main

sys.exit(main())
