"""docs/benchmarks.md is assembled from sections, each written by one benchmark script
between ``<!-- name:start -->`` and ``<!-- name:end -->`` markers; rerunning a script replaces
only its own section."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
INTRO = """# Benchmarks

Every number on this page comes from a command in `bench/` (each section names its command and
the machine it ran on); rerunning a command replaces only its own section. Speed is measured
here, never asserted in tests. On this 2-core CPU, XLA's convolutions are about 3x slower than
PyTorch's oneDNN kernels and its attention path about 1.5x slower, so for the CNN and the
transformer the ceiling for a JAX-backed framework is hand-written JAX, not PyTorch.
"""


def write_section(name, body):
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = PAGE.read_text() if PAGE.exists() else INTRO
    block = f"{start}\n{body.strip()}\n{end}"
    if start in text:
        text = re.sub(re.escape(start) + r".*?" + re.escape(end), lambda m: block, text,
                      flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    PAGE.write_text(text)
    print(f"wrote section {name!r} of {PAGE}")
