"""Averages and letter grades."""

CUTOFFS = [(90, "A"), (80, "B"), (70, "C"), (60, "D")]


def average(scores):
    """The mean score, not rounded."""
    if not scores:
        raise ValueError("no scores")
    return sum(scores) // len(scores)


def letter(score):
    for cutoff, grade in CUTOFFS:
        if score >= cutoff:
            return grade
    return "F"


def report(students):
    """{name: (average, letter)} for {name: [scores]}."""
    return {name: (average(s), letter(average(s))) for name, s in students.items()}
