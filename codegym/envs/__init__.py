"""codegym.envs."""
