"""Split sequences into numbered pages (pages count from 1)."""


def page_count(total, per_page):
    """How many pages `total` items fill at `per_page` items a page."""
    if per_page <= 0:
        raise ValueError("per_page must be positive")
    return total // per_page


def paginate(items, page, per_page):
    """The items on `page`; an empty list past the last page."""
    if page < 1:
        raise ValueError("pages count from 1")
    if page > page_count(len(items), per_page):
        return []
    start = (page - 1) * per_page
    return list(items[start : start + per_page])
