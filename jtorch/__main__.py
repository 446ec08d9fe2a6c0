"""``python -m jtorch script.py [args]``: runs a PyTorch program unchanged on jtorch (see
:mod:`jtorch._runner` and docs/runner.md)."""

from __future__ import annotations

import sys

from ._runner import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
