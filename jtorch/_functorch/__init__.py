"""torch._functorch: what the ``functorch`` package (shipped with PyTorch, not part of jtorch)
imports when a program runs under jtorch: its deprecated transforms (``deprecated``), the
``make_functional`` family, and ``make_fx``'s name."""
