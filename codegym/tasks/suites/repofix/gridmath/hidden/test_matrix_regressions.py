from gridmath.ops.matrix import multiply, shape, transpose


def test_transpose_wide_matrix():
    assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]


def test_transpose_tall_matrix():
    assert transpose([[1], [2], [3]]) == [[1, 2, 3]]


def test_gram_matrix_of_wide_matrix():
    a = [[1, 2, 3]]
    assert shape(multiply(transpose(a), a)) == (3, 3)
