"""A Python where torch cannot be installed (no wheel for the platform, e.g. Windows on ARM): put
this folder first on PYTHONPATH and `import torch` raises ImportError in this process and in every
child that inherits PYTHONPATH (labs do; tests/test_without_torch.py)."""

from __future__ import annotations

import sys

sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` now raises ImportError
