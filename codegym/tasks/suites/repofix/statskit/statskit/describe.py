"""Summary statistics of numeric samples."""


def mean(values):
    if not values:
        raise ValueError("mean of an empty sample")
    return sum(values) / len(values)


def median(values):
    """The middle value; for an even count, the mean of the two middle values."""
    if not values:
        raise ValueError("median of an empty sample")
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def describe(values):
    return {"n": len(values), "mean": mean(values), "median": median(values),
            "min": min(values), "max": max(values)}
