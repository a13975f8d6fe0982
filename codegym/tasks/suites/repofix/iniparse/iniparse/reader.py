"""Read `key = value` lines grouped in [sections]."""


class ParseError(ValueError):
    pass


def parse(text):
    """{section: {key: value}}; keys before any section go to "DEFAULT"."""
    data = {"DEFAULT": {}}
    section = "DEFAULT"
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            data.setdefault(section, {})
            continue
        if "=" not in line:
            raise ParseError(f"line {number}: expected key = value")
        key, value = line.split("=")[:2]
        data[section][key.strip()] = value.strip()
    return data
