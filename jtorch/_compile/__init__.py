"""jtorch.compile: a PyTorch-style step as one jax.jit program with its state lifted.

``context`` holds the tracing flag the core consults; ``state`` finds the state a function
touches; ``step`` compiles functions; ``module`` compiles modules (forward + one vjp).
"""
