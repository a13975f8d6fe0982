"""Cut sequences into fixed-size batches."""


def chunks(seq, size):
    """Consecutive slices of `seq` with `size` items; the last one may be shorter."""
    if size < 1:
        raise ValueError("size must be at least 1")
    seq = list(seq)
    for start in range(0, len(seq) - size + 1, size):
        yield seq[start : start + size]


def run_batches(records, size, handler):
    """Call `handler` on each batch; return how many records were handled."""
    handled = 0
    for batch in chunks(records, size):
        handler(batch)
        handled += len(batch)
    return handled
