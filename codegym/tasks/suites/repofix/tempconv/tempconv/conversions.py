"""Convert temperatures between Celsius, Fahrenheit and Kelvin."""

UNITS = ("C", "F", "K")


def to_celsius(value, unit):
    """`value` in `unit` ("C", "F" or "K"), converted to Celsius."""
    unit = unit.upper()
    if unit == "C":
        return float(value)
    if unit == "F":
        return (value - 32) * 9 / 5
    if unit == "K":
        return value - 273.15
    raise ValueError(f"unknown unit {unit!r}; use one of {UNITS}")


def from_celsius(value, unit):
    """`value` in Celsius, converted to `unit`."""
    unit = unit.upper()
    if unit == "C":
        return float(value)
    if unit == "F":
        return value * 9 / 5 + 32
    if unit == "K":
        return value + 273.15
    raise ValueError(f"unknown unit {unit!r}; use one of {UNITS}")
