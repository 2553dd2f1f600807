"""Entry point of ``python -m autograd_notes``."""

import sys

if sys.argv[1:2] == ["explain"]:  # a reader's terminal: the index alone, PyTorch not imported
    from ._explain.cli import main as explain_main

    sys.exit(explain_main())

from .records.cli import main

sys.exit(main())
