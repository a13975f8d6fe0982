"""Simple polygons given by their vertices in order."""

import math


class Polygon:
    def __init__(self, vertices):
        if len(vertices) < 3:
            raise ValueError("a polygon needs at least 3 vertices")
        self.vertices = [tuple(v) for v in vertices]

    def edges(self):
        """Consecutive vertex pairs, including the closing edge back to the start."""
        return [(self.vertices[i], self.vertices[i + 1]) for i in range(len(self.vertices) - 1)]

    def perimeter(self):
        return sum(math.dist(a, b) for a, b in self.edges())

    def area(self):
        """Shoelace formula."""
        n = len(self.vertices)
        twice = sum(
            self.vertices[i][0] * self.vertices[(i + 1) % n][1]
            - self.vertices[(i + 1) % n][0] * self.vertices[i][1]
            for i in range(n)
        )
        return abs(twice) / 2

    def bounding_box(self):
        xs = [x for x, _ in self.vertices]
        ys = [y for _, y in self.vertices]
        return (min(xs), min(ys), max(xs), max(ys))
