"""codegym.trainer."""
