"""Call a function again when it raises, waiting longer each time."""

import time


def retry(func, attempts=3, delay=0.0, backoff=2.0, exceptions=(Exception,), sleep=time.sleep):
    """Call `func()` up to `attempts` times and return its result.

    Only `exceptions` are retried. When every attempt fails, the last exception is
    raised.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    wait = delay
    for attempt in range(1, attempts + 1):
        try:
            return func()
        except exceptions:
            if attempt == attempts:
                return None
            sleep(wait)
            wait *= backoff
