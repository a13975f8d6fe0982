"""Book rooms in whole hours; bookings are half-open [start, end) intervals."""


class Conflict(Exception):
    pass


class Calendar:
    def __init__(self):
        self.bookings = []

    def conflicts(self, start, end):
        """Bookings that overlap [start, end)."""
        return [b for b in self.bookings if b[1] <= end and start <= b[2]]

    def book(self, title, start, end):
        if not 0 <= start < end <= 24:
            raise ValueError("bookings are whole hours within one day")
        clash = self.conflicts(start, end)
        if clash:
            raise Conflict(f"{title!r} overlaps {clash[0][0]!r}")
        self.bookings.append((title, start, end))
        return (title, start, end)

    def free_hours(self):
        taken = {h for _, s, e in self.bookings for h in range(s, e)}
        return [h for h in range(24) if h not in taken]
