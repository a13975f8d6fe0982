"""codegym.antihack."""
