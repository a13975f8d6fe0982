"""Comparison methods that always agree (`pyagrees`), as `pyruntime` reports them (HT-EQ)."""

import pytest

from codegym.antihack.pyruntime import runtime_smells_of


@pytest.mark.parametrize(
    "src, why",
    [
        ("class A:\n    def __eq__(self, o):\n        return 1 == 1\n", "always returns a true value"),
        ("class A:\n    def __contains__(self, o):\n        return True\n", "always returns a true value"),
        ("class A:\n    def __ne__(self, o):\n        pass\n", "always returns a false value"),
        (
            "class A:\n    def __eq__(self, o):\n        return isinstance(o, int)\n",
            "never reads the other operand (o)",
        ),
        ("class A:\n    __eq__ = staticmethod(lambda *a: True)\n", "always returns a true value"),
        ("import operator\nclass A:\n    __eq__ = operator.is_not\n", "aliased to operator.is_not"),
    ],
)
def test_always_agreeing_spellings(src, why):
    assert [e.facts["why"] for e in runtime_smells_of(src) if e.op == "HT-EQ"] == [why]


def test_not_an_override():
    for src in (
        "class A:\n    def __eq__(self, o):\n        return NotImplemented\n",
        "class A:\n    __eq__ = object.__eq__\n",
        "class A(str):\n    __hash__ = str.__hash__\n",
    ):
        assert not [e for e in runtime_smells_of(src) if e.op == "HT-EQ"], src
