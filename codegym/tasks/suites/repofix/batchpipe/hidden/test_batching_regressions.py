from batchpipe.batching import chunks, run_batches


def test_last_short_chunk_is_kept():
    assert list(chunks(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(chunks([1, 2], 5)) == [[1, 2]]


def test_every_record_is_handled():
    seen = []
    assert run_batches(list(range(5)), 2, seen.append) == 5
    assert seen[-1] == [4]
