import pytest

from shapes2d.geometry.polygon import Polygon


def test_triangle_perimeter_includes_closing_edge():
    assert Polygon([(0, 0), (4, 0), (4, 3)]).perimeter() == pytest.approx(12)


def test_square_has_four_edges():
    square = Polygon([(0, 0), (1, 0), (1, 1), (0, 1)])
    assert len(square.edges()) == 4
    assert square.perimeter() == pytest.approx(4)
