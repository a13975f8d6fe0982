import pytest

from shapes2d.geometry.polygon import Polygon


def test_area_of_triangle():
    assert Polygon([(0, 0), (4, 0), (4, 3)]).area() == 6


def test_bounding_box():
    assert Polygon([(1, 2), (5, -1), (3, 7)]).bounding_box() == (1, -1, 5, 7)


def test_needs_three_vertices():
    with pytest.raises(ValueError):
        Polygon([(0, 0), (1, 1)])
