"""codegym: coding tasks as Gymnasium multi-turn environments in Docker sandboxes."""

__version__ = "0.1.0"
