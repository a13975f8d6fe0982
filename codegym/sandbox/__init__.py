"""codegym.sandbox."""
