"""torch.backends.cpu: the CPU's vector capability, as PyTorch reports it."""

from __future__ import annotations

import platform

__all__ = ["get_cpu_capability"]


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def get_cpu_capability():
    """"AVX512", "AVX2" or "DEFAULT" on x86 (PyTorch's names), "DEFAULT" elsewhere.

    Differences from PyTorch:
        - Read from /proc/cpuinfo (Linux); other systems report "DEFAULT". PyTorch's ARM
          names ("SVE256"...) are not reported.
    """
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "DEFAULT"
    flags = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "AVX512"
    if "avx2" in flags:
        return "AVX2"
    return "DEFAULT"
