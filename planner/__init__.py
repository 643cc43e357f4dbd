"""tile-planner: plans and proves NZ tensor layouts and compute-kernel configurations."""

__version__ = "0.1.0"
PROTOCOL_VERSION = "1"
