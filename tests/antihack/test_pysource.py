"""Source as Python compiles it: coding cookies decoded before anything reads the code."""

import pytest

from codegym.antihack.pyops import scan_python
from codegym.antihack.pysmells import code_smells
from codegym.antihack.pysource import (
    declared_encoding,
    parse_fragment,
    parse_indexed,
    plain_encoding,
    source_as_run,
)

UTF7 = "# coding: utf-7\ndef add(a, b):\n    #+AAo-    return 5\n    return sum((a, b))\n"


def test_utf7_cookie_reveals_the_hidden_branch():
    text, enc = source_as_run(UTF7)
    assert enc == "utf-7"
    assert "\n    return 5\n" in text  # what Python runs: the "comment" is a line of code
    fn = parse_indexed(UTF7).tree.body[0]
    assert [type(s).__name__ for s in fn.body] == ["Return", "Return"]
    ns: dict = {}
    exec(compile(UTF7.encode(), "<utf7>", "exec"), ns)  # Python agrees with the guard
    assert ns["add"](1, 2) == 5


@pytest.mark.parametrize(
    "src, enc",
    [
        ("# -*- coding: utf-7 -*-\n", "utf-7"),
        ("#!/usr/bin/env python\n# vim: set fileencoding=unicode_escape :\n", "unicode-escape"),
        ("# coding=UTF_16\n", "utf-16"),
        ("# coding: euc-jp\n", "euc_jp"),
    ],
)
def test_exotic_cookies(src, enc):
    assert declared_encoding(src) == enc and not plain_encoding(enc)


@pytest.mark.parametrize(
    "src",
    [
        "# -*- coding: utf-8 -*-\nx = 'é'\n",
        "# coding: latin-1\nx = 1\n",
        "# coding: iso-8859-15\n",
        "# coding: cp1252\n",
        "# coding: ascii\n",
        "x = 1\n# coding: utf-7\n#+AAo-import os\n",  # line 2 counts only below a comment or blank line
        "import os\n",
    ],
)
def test_plain_cookies_read_as_written(src):
    assert source_as_run(src) == (src, None)
    assert not [e for e in code_smells(src) if e.op == "HT-CODING"]


def test_unicode_escape_cookie_hides_an_import():
    src = "# coding: unicode_escape\nx = 1  #\\nimport subprocess; subprocess.run(['git', 'log', '--all'])\n"
    assert ("argv", ["git", "log", "--all"]) in [(e.kind, e.value) for e in scan_python(src)]
    assert [e.facts["encoding"] for e in code_smells(src) if e.op == "HT-CODING"] == ["unicode-escape"]


def test_unparseable_exotic_source_still_flagged():
    assert [e.op for e in code_smells("# coding: utf-7\ndef (((\n") if e.op == "HT-CODING"] == ["HT-CODING"]


def test_fragments_parse():
    assert parse_fragment("    def f(self):\n        return 1\n") is not None
    assert parse_fragment("if x:\n") is not None
    assert scan_python("def (((") == []
