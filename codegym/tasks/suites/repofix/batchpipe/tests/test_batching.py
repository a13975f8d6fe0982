import pytest

from batchpipe.batching import chunks, run_batches


def test_even_chunks():
    assert list(chunks(range(6), 3)) == [[0, 1, 2], [3, 4, 5]]


def test_run_batches_even():
    seen = []
    assert run_batches(list(range(4)), 2, seen.append) == 4
    assert seen == [[0, 1], [2, 3]]


def test_bad_size():
    with pytest.raises(ValueError):
        list(chunks([1], 0))
