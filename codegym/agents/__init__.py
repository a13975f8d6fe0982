"""codegym.agents."""
