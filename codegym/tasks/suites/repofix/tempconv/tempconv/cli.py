"""`tempconv 212F --to C`: convert one reading."""

import argparse

from .conversions import UNITS, from_celsius, to_celsius


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tempconv", description="Convert a temperature.")
    parser.add_argument("reading", help="a number followed by a unit, e.g. 21.5C")
    parser.add_argument("--to", default="C", choices=UNITS + tuple(u.lower() for u in UNITS))
    args = parser.parse_args(argv)
    value, unit = float(args.reading[:-1]), args.reading[-1]
    result = from_celsius(to_celsius(value, unit), args.to)
    print(f"{result:.2f} {args.to.upper()}")
    return 0
