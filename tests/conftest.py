from __future__ import annotations

import sys
from pathlib import Path

# tests/_site.py is a helper module of the tests, importable as `_site`.
sys.path.insert(0, str(Path(__file__).parent))
