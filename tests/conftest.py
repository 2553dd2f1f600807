from __future__ import annotations

import os
import sys
from pathlib import Path

# tests/_site.py is a helper module of the tests, importable as `_site`.
sys.path.insert(0, str(Path(__file__).parent))

# What the tests read from a subprocess must not depend on the terminal: CI
# sets FORCE_COLOR, and Sphinx, sphinx-gallery and pytest then colour their
# messages with escape codes in the middle of the words the tests look for.
for variable in ("FORCE_COLOR", "PY_COLORS", "CLICOLOR_FORCE"):
    os.environ.pop(variable, None)
os.environ["NO_COLOR"] = "1"
