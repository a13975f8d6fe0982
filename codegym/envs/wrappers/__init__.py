"""codegym.envs.wrappers."""
