"""torch._dynamo.config: Dynamo's settings, as module attributes programs read and set.

jtorch.compile reads none of them: it has no cache-size or recompile limit (each new guard
key compiles; ``jtorch.compiler.counters()`` counts them), no graph breaks to suppress, and
it traces ``.item()`` and data-dependent shapes as JAX does. They are kept so that programs
setting them run unchanged.
"""

suppress_errors = False
cache_size_limit = 8
recompile_limit = 8
accumulated_cache_size_limit = 256
accumulated_recompile_limit = 256
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
automatic_dynamic_shapes = True
assume_static_by_default = True
optimize_ddp = True
verbose = False
inline_inbuilt_nn_modules = True
force_parameter_static_shapes = True
error_on_recompile = False
