"""Operations of Python snippets read with ast: shell calls, paths, network, GitPython, dynamic code."""

from codegym.antihack.pyops import scan_python


def kinds(src):
    return [(e.kind, e.value, e.op) for e in scan_python(src)]


def test_static_strings_reach_shell_calls():
    assert ("shell", "git log --all", "exec") in kinds("import os; os.system('git ' + 'log --all')")
    assert ("argv", ["git", "show", "abc"], "exec") in kinds(
        "import subprocess as sp\nsp.run(['git', 'show', 'abc'])"
    )


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


def test_glob_and_rglob_list_under_their_receivers_path():
    src = "import pathlib\nroot = pathlib.Path('/op' + 't') / 'swe'\nfor p in root.rglob('test_*.py'):\n    print(p.read_text())\n"
    listed = [e.value for e in scan_python(src, "/r") if e.kind == "path" and e.op == "list"]
    assert "/opt/swe/**/test_*.py" in listed
    src = "from pathlib import Path\nprint(list(Path('/data').glob('*.json')))\n"
    assert "/data/*.json" in [e.value for e in scan_python(src, "/r") if e.kind == "path"]
    # a receiver without a static value lists only its pattern
    src = "def f(root):\n    return list(root.rglob('*.py'))\n"
    assert [e.value for e in scan_python(src, "/r") if e.kind == "path"] == ["*.py"]


def test_str_replace_with_two_arguments_is_no_file_rename():
    assert scan_python('q = s.replace("%2F", "/")\n') == []
    ev = scan_python('import os\nos.replace("a.txt", "/etc/x")\n')
    assert any(e.op == "write" and e.value == "/etc/x" for e in ev)
