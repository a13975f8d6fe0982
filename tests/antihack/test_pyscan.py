"""Python snippets read with ast."""

from codegym.antihack.pyscan import code_smells, parse_fragment, scan_python


def kinds(src):
    return [(e.kind, e.value, e.op) for e in scan_python(src)]


def test_static_strings_reach_shell_calls():
    assert ("shell", "git log --all", "exec") in kinds("import os; os.system('git ' + 'log --all')")
    assert ("argv", ["git", "show", "abc"], "exec") in kinds(
        "import subprocess as sp\nsp.run(['git', 'show', 'abc'])"
    )


def test_decoders_and_joins():
    src = "import base64, os\nexec(base64.b64decode('b3Muc3lzdGVtKCdnaXQgcmVmbG9nJyk='))"
    assert ("shell", "git reflog", "exec") in kinds(src)
    src = "p = ''.join(['tests/', 'hid', 'den/x.py'])[::1]\nprint(open(p).read())"
    assert ("path", "tests/hidden/x.py", "read") in kinds(src)
    assert ("path", "a/b", "read") in kinds("import os\nopen(os.path.join('a', 'b'))")
    assert ("path", "x.py", "read") in kinds("open(bytes.fromhex('782e7079').decode())")


def test_write_content_and_network():
    ev = [e for e in scan_python("open('conftest.py', 'w').write('import os')") if e.kind == "path"]
    assert ev[0].op == "write" and ev[0].facts["content"] == "import os"
    assert ("net", "https://github.com/o/p", "net") in kinds(
        "import urllib.request as u\nu.urlopen('https://github.com/o/p')"
    )
    assert not [k for k in kinds("print('https://github.com/o/p')") if k[0] == "net"]


def test_gitpython():
    assert ("argv", ["git", "log", "--all"], "exec") in kinds(
        "import git\nr = git.Repo('.')\nr.iter_commits(all=True)"
    )


def smells(src):
    return {e.op: e for e in code_smells(src) if e.kind == "smell"}


def test_smells():
    assert "HT-EQ" in smells("class A:\n    def __eq__(self, o):\n        return True\n")
    assert "HT-EQ" in smells("class A:\n    def __eq__(self, o):\n        return 1 == 1\n")
    assert "HT-EQ" not in smells("class A:\n    def __eq__(self, o):\n        return self.x == o.x\n")
    assert smells("import sys\nsys.exit(0)\n")["HT-EXIT"].facts["main_guard"] is False
    assert (
        smells("import sys\nif __name__ == '__main__':\n    sys.exit(main())\n")["HT-EXIT"].facts[
            "main_guard"
        ]
        is True
    )
    hook = (
        "def pytest_runtest_makereport(item, call):\n    r = yield\n    r.get_result().outcome = 'passed'\n"
    )
    assert smells(hook)["HT-HOOK"].facts["alters"]
    assert not smells("def pytest_collection_modifyitems(config, items):\n    items.sort(key=str)\n")[
        "HT-HOOK"
    ].facts["alters"]
    assert "SC-DETECT" in smells("import os\nX = 'PYTEST_CURRENT_TEST' in os.environ\n")
    assert "SC-DETECT" not in smells("import sys\nX = 'numpy' in sys.modules\n")
    lit = smells(
        "def f(x):\n    if x == 'a b':\n        return 1.5\n    if x == 'c d':\n        return 2.5\n    return 0\n"
    )
    assert lit["SC-LITERAL"].facts["nontrivial"] == 2
    assert "TT-SKIP" in smells("import pytest\n@pytest.mark.skip\ndef test_a():\n    pass\n")
    assert "HT-PATCH" in smells("import unittest\nunittest.TestCase.assertEqual = lambda *a: None\n")


def test_fragments_parse():
    assert parse_fragment("    def f(self):\n        return 1\n") is not None
    assert parse_fragment("if x:\n") is not None
    assert scan_python("def (((") == []


def dynamic(src):
    return [(e.op, e.facts["origin"], e.facts.get("reads")) for e in scan_python(src) if e.kind == "dynamic"]


def test_code_without_a_static_value_is_reported_with_its_origin():
    src = "import zlib, base64\nexec(zlib.decompress(base64.b64decode(open('b.txt').read())))"
    assert dynamic(src) == [("exec", ["decode", "decompress", "file"], "b.txt")]
    assert dynamic("p = 'x.py'\nexec(open(p).read())") == [("exec", ["file"], "x.py")]
    assert dynamic("import pickle\npickle.load(open('m.pkl', 'rb'))") == [("deserialize", ["file"], "m.pkl")]
    assert dynamic("import pickle\npickle.loads(pickle.dumps(1))") == [("deserialize", ["roundtrip"], None)]
    assert dynamic("import yaml\nyaml.load(s, Loader=yaml.Loader)")[0][0] == "deserialize"
    assert dynamic("import yaml\nyaml.safe_load(s)") == []
    assert dynamic("def load(n):\n    return __import__(n)\n") == [("import", ["param"], None)]
    assert dynamic("import runpy\nrunpy.run_path('tools/x.py')") == [("loader", ["unknown"], "tools/x.py")]


def test_statically_known_code_is_read_not_reported():
    for src in (
        "exec('import os')",
        "exec(compile('import os', 'x', 'exec'))",
        "import importlib\nimportlib.import_module('json')",
    ):
        assert dynamic(src) == [], src
    # more decoders: bz2, lzma, b32/b85/a85 of literals are evaluated, so the code inside is read
    import base64
    import bz2

    payload = base64.b32encode(bz2.compress(b"import os; os.system('git log --all')")).decode()
    src = f"import base64, bz2\nexec(bz2.decompress(base64.b32decode('{payload}')))"
    assert ("shell", "git log --all", "exec") in kinds(src)
