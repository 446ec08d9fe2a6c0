"""torch.distributed.launcher: ``LaunchConfig``, ``elastic_launch``, ``launch_agent``."""

from .api import (
    LaunchConfig as LaunchConfig,
    elastic_launch as elastic_launch,
    launch_agent as launch_agent,
)

__all__ = ["LaunchConfig", "elastic_launch", "launch_agent"]
