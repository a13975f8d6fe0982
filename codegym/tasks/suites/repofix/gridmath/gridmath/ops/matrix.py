"""Matrices as lists of rows."""


def shape(m):
    return (len(m), len(m[0]) if m else 0)


def transpose(m):
    """Rows become columns: a 2x3 matrix becomes 3x2."""
    rows, cols = shape(m)
    return [[m[r][c] for r in range(rows)] for c in range(rows)]


def multiply(a, b):
    rows, inner = shape(a)
    inner_b, cols = shape(b)
    if inner != inner_b:
        raise ValueError(f"cannot multiply {shape(a)} by {shape(b)}")
    return [[sum(a[r][k] * b[k][c] for k in range(inner)) for c in range(cols)] for r in range(rows)]
