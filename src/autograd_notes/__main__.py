"""Entry point of ``python -m autograd_notes``."""

import sys

from ._cli import main

sys.exit(main())
