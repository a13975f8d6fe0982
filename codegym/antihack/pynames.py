"""The call names `pyops.scan_python` recognises, by what the call does (dotted names after import
aliases, or the last attribute: the "tail").

One table for every Python surface: the code rules (`rule_code`) use `FILE_ACCESS` to tell library
code that reads the grading's files.

    >>> "os.system" in SHELL_FUNCS and "rmtree" in DELETE_TAILS
    True
"""

from __future__ import annotations

SHELL_FUNCS = {
    "os.system",
    "os.popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "commands.getoutput",
    "asyncio.create_subprocess_shell",
    "pty.spawn",
}


ARGV_FUNCS = {
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "asyncio.create_subprocess_exec",
    "os.execvp",
    "os.execv",
    "os.execlp",
    "os.spawnvp",
}


PY_EXEC = {"exec", "eval", "compile", "builtins.exec", "builtins.eval", "builtins.compile"}


# Code the guard cannot read when its argument has no static value (kind "dynamic" events):
# deserializers that can run code, computed imports, and loaders of modules by path (path arg index).
DESERIALIZERS = {
    f"{m}.{f}"
    for m in ("pickle", "cPickle", "_pickle", "marshal", "dill", "cloudpickle")
    for f in ("load", "loads", "Unpickler")
} | {"joblib.load", "shelve.open", "jsonpickle.decode", "yaml.unsafe_load", "pandas.read_pickle"}


IMPORTERS = {"importlib.import_module", "__import__", "importlib.__import__", "runpy.run_module"}


LOADERS = {
    "importlib.util.spec_from_file_location": 1,
    "importlib.machinery.SourceFileLoader": 1,
    "importlib.machinery.SourcelessFileLoader": 1,
    "importlib.machinery.ExtensionFileLoader": 1,
    "imp.load_source": 1,
    "imp.load_compiled": 1,
    "runpy.run_path": 0,
    "zipimport.zipimporter": 0,
}


NET_TAILS = {
    "urlopen",
    "urlretrieve",
    "Request",
    "get",
    "post",
    "head",
    "put",
    "request",
    "stream",
    "download",
    "fetch",
    "clone_from",
    "create_connection",
    "HTTPConnection",
    "HTTPSConnection",
    "connect",
    "open_url",
    "retrieve",
}


NOT_ACCESS = {
    "print",
    "str",
    "len",
    "repr",
    "format",
    "isinstance",
    "logging.info",
    "logging.debug",
    "logger.info",
}


WRITE_TAILS = {
    "write_text",
    "write_bytes",
    "touch",
    "mkdir",
    "chmod",
    "truncate",
    "symlink_to",
    "hardlink_to",
}


DELETE_TAILS = {"remove", "unlink", "rmdir", "rmtree"}


LIST_TAILS = {
    "listdir",
    "scandir",
    "walk",
    "iterdir",
    "glob",
    "iglob",
    "rglob",
    "exists",
    "isfile",
    "isdir",
    "is_file",
    "is_dir",
    "stat",
    "lstat",
}


#: Calls that read or list a file system path (`rule_code`: library code reading tests or the
#: grader's files when it runs): the listing calls but ``lstat``, and the readers.
FILE_ACCESS = (LIST_TAILS - {"lstat"}) | {
    "open",
    "read_text",
    "read_bytes",
    "getsize",
    "getmtime",
    "copy",
    "copyfile",
    "copy2",
    "parse",
    "Path",
}
