"""Build URLs from a base and path segments."""

from urllib.parse import urlencode


def join_url(base, *segments):
    """"https://h/api" + "users" + "7" -> "https://h/api/users/7"."""
    url = base
    for segment in segments:
        url = url + "/" + str(segment)
    return url


def with_query(url, **params):
    """Append `params` (None values dropped) as a query string."""
    params = {k: v for k, v in params.items() if v is not None}
    if not params:
        return url
    sep = "&" if "?" in url else "?"
    return url + sep + urlencode(sorted(params.items()))
