"""The call names the Python scan knows: one table, the sets used where they are meant to be."""

from codegym.antihack.pynames import DELETE_TAILS, FILE_ACCESS, LIST_TAILS, SHELL_FUNCS, WRITE_TAILS
from codegym.antihack.pyops import scan_python


def test_file_access_is_the_readers_and_the_listers():
    # the set rules.py used to keep beside pyscan.py's tables (issue 15): the same members as before
    assert FILE_ACCESS == {
        "open", "read_text", "read_bytes", "listdir", "scandir", "walk", "glob", "iglob", "rglob", "iterdir",
        "exists", "isfile", "isdir", "is_file", "is_dir", "stat", "getsize", "getmtime", "copy", "copyfile",
        "copy2", "parse", "Path",
    }  # fmt: skip
    assert LIST_TAILS - FILE_ACCESS == {"lstat"}
    assert not FILE_ACCESS & (WRITE_TAILS | DELETE_TAILS)


def test_the_tables_decide_the_operation_reported():
    ops = {
        e.func: e.op
        for e in scan_python("import os, shutil\nos.listdir('a/b')\nshutil.rmtree('c/d')\nopen('e.py', 'w')")
    }
    assert ops == {"os.listdir": "list", "shutil.rmtree": "delete", "open": "write"}
    assert {"os.system", "os.popen"} <= SHELL_FUNCS
