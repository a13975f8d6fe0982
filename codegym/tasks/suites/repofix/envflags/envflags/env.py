"""Read settings from environment variables with types and defaults."""

import os

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off", ""}


def get_str(name, default=None, environ=None):
    environ = os.environ if environ is None else environ
    return environ.get(name, default)


def get_int(name, default=0, environ=None):
    value = get_str(name, None, environ)
    return default if value is None else int(value)


def get_bool(name, default=False, environ=None):
    """"1", "true", "yes", "on" -> True; "0", "false", "no", "off", "" -> False."""
    value = get_str(name, None, environ)
    if value is None:
        return default
    return bool(value)
