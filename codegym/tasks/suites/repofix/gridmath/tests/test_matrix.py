import pytest

from gridmath.ops.matrix import multiply, shape, transpose


def test_transpose_square():
    assert transpose([[1, 2], [3, 4]]) == [[1, 3], [2, 4]]


def test_multiply():
    assert multiply([[1, 2], [3, 4]], [[5], [6]]) == [[17], [39]]
    with pytest.raises(ValueError):
        multiply([[1, 2]], [[1, 2]])


def test_shape():
    assert shape([[1, 2, 3]]) == (1, 3)
