"""codegym.tasks."""
