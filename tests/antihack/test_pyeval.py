"""Static values of Python expressions: decoders, joins and slices evaluated without running code."""

import ast

from codegym.antihack.paths import UNKNOWN
from codegym.antihack.pyeval import Evaluator, as_text
from codegym.antihack.pyops import scan_python
from codegym.antihack.pysource import import_aliases


def kinds(src):
    return [(e.kind, e.value, e.op) for e in scan_python(src)]


def test_decoders_and_joins():
    src = "import base64, os\nexec(base64.b64decode('b3Muc3lzdGVtKCdnaXQgcmVmbG9nJyk='))"
    assert ("shell", "git reflog", "exec") in kinds(src)
    src = "p = ''.join(['tests/', 'hid', 'den/x.py'])[::1]\nprint(open(p).read())"
    assert ("path", "tests/hidden/x.py", "read") in kinds(src)
    assert ("path", "a/b", "read") in kinds("import os\nopen(os.path.join('a', 'b'))")
    assert ("path", "x.py", "read") in kinds("open(bytes.fromhex('782e7079').decode())")


def value_of(src: str):
    tree = ast.parse(src)
    return Evaluator(tree, import_aliases(tree)).value(tree.body[-1].value)


def test_evaluator_directly():
    assert value_of("import codecs\nx = codecs.decode('tvg', 'rot13')") == "git"
    assert value_of("a = 'tests'\nx = f'{a}/hidden'") == "tests/hidden"
    assert value_of("x = ''.join(chr(c) for c in [103, 105, 116])") == "git"
    assert value_of("import os\nx = 'a/' + os.environ['X']") == "a/" + UNKNOWN
    assert as_text(b"git") == "git" and as_text(3) is None


def test_slices_with_negative_steps_and_bounds_have_values():
    tree = ast.parse("a = 'tig'[::-1]\nb = 'xgitx'[1:4]\nc = 'abc'[::0]\nd = 'abc'[n:]\ne = -3\n")
    ev = Evaluator(tree, {})
    assert [ev.value(s.value) for s in tree.body] == ["git", "git", None, None, -3]
    ops = scan_python("import os\nos.system('lla-- gol tig'[::-1])\n")
    assert any(e.kind == "shell" and "git log --all" in str(e.value) for e in ops), ops


def test_starred_lists_are_spliced_in_place():
    events = scan_python(
        "import subprocess\nsubprocess.run(['git', 'log', *['--all', '--', 'x']], check=False)\n"
    )
    assert [e.value for e in events if e.kind == "argv"] == [["git", "log", "--all", "--", "x"]]
