"""Shell-level semantics of one command: ``cd``, ``export``, ``alias``, functions, ``eval``, ``bash -c``,
``source``, ``xargs``, ``find -exec`` and wrappers such as ``sudo``/``env``/``timeout``.

`Dispatcher` is mixed into `shwalk.ShellAnalyzer`: it runs a resolved command, descending into
the scripts it runs (written earlier in the episode, decoded, or given inline).

    >>> _strip_wrappers(["sudo", "-u", "x", "timeout", "5", "env", "A=1", "git", "log"])
    ['git', 'log']
"""

from __future__ import annotations

import re

from .paths import HOME, UNKNOWN, basename, resolve
from .shcommand import MAX_DEPTH, SEARCH, SHELLS, Frame, Memory, SimpleCommand
from .shparse import parse_bytes, shlex_join
from .shpure import PURE, pure_stdout

# Commands `ShellAnalyzer` interprets itself (besides functions the script defines).
_SHELL_LEVEL = frozenset(
    {"cd", "pushd", "export", "declare", "typeset", "local", "readonly", "alias", "read", "eval", "su"}
    | {"source", ".", "watch", "xargs", "find"}
    | SHELLS
)


#: Programs whose commands (after these options) can escape to a shell, and the escape prefixes.
_ESCAPES = {
    "gdb": ({"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "-init-eval-command"}, ("shell ", "!", "pipe ")),
    "lldb": ({"-o", "--one-line", "-O", "--one-line-before-file", "-k"}, ("platform shell ", "shell ", "script os.system")),
    "vim": ({"-c", "--cmd"}, ("!", "silent !", "r !", "read !")),
    "vi": ({"-c", "--cmd"}, ("!", "silent !", "r !", "read !")),
    "ex": ({"-c", "--cmd"}, ("!", "silent !", "r !", "read !")),
    "nvim": ({"-c", "--cmd"}, ("!", "silent !", "r !", "read !")),
}  # fmt: skip


def shell_escapes(name: str, args: list[str]) -> list[str]:
    """Shell commands a debugger's or editor's command options run (``gdb -ex 'shell cat x'``).

    >>> shell_escapes("gdb", ["-batch", "-ex", "shell cat /g/run.sh", "-ex", "run"])
    ['cat /g/run.sh']
    >>> shell_escapes("vim", ["-c", "!ls", "-c", "wq", "f.txt"])
    ['ls']
    """
    opts, prefixes = _ESCAPES[name]
    out = []
    for opt, value in zip(args, args[1:], strict=False):
        if opt in opts:
            v = value.lstrip().lstrip(":").lstrip()
            for p in prefixes:
                if v.startswith(p):
                    out.append(v[len(p) :].strip("\"'()") if p.startswith("script") else v[len(p) :])
                    break
    return out


_WRAPPERS_WITH_ARG = {
    "sudo": {"-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U"},
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "nice": {"-n"},
    "ionice": {"-c", "-n"},
    "stdbuf": set(),
    "env": {"-u", "-C", "--chdir", "--unset"},
    "command": set(),
    "builtin": set(),
    "exec": {"-a"},
    "nohup": set(),
    "time": set(),
    "setsid": set(),
    "unbuffer": set(),
    "chronic": set(),
    "taskset": set(),
    "flock": set(),
    "strace": {"-o", "-e", "-p", "-s"},
    "ltrace": {"-o", "-e"},
    "doas": {"-u"},
    "runuser": {"-u", "-g"},
    "chrt": set(),
    "caffeinate": set(),
    # multi-call binaries: ``busybox sed -i …`` is ``sed -i …``
    "busybox": set(),
    "toybox": set(),
}


def _strip_wrappers(argv: list[str]) -> list[str]:
    """``sudo -u x timeout 5 env A=1 git log`` -> ``git log``."""
    if not argv or basename(argv[0]) not in _WRAPPERS_WITH_ARG and argv[:2] != ["bundle", "exec"]:
        return argv
    for _ in range(8):
        if not argv:
            return argv
        name = basename(argv[0])
        if name == "bundle" and argv[1:2] == ["exec"]:  # ``bundle exec ruby -e ...``
            argv = argv[2:]
            continue
        if name not in _WRAPPERS_WITH_ARG or (name == "command" and argv[1:2] in (["-v"], ["-V"])):
            return argv  # ``command -v x`` looks x up (like ``which``), it does not run it
        takes = _WRAPPERS_WITH_ARG[name]
        i = 1
        while i < len(argv):
            a = argv[i]
            if a == "--":
                i += 1
                break
            if a.startswith("-"):
                i += 2 if a in takes else 1
                continue
            if name == "env" and "=" in a:
                i += 1
                continue
            if name in ("timeout", "taskset", "chrt", "flock"):
                i += 1  # the first operand is the duration / mask / priority / lock file
            break
        argv = argv[i:]
    return argv


def _shell_script(
    args: list[str], stdin: str | None, memory: Memory, cwd: str
) -> tuple[str | None, list[str]]:
    """The script a shell invocation runs: ``-c STR``, a script file, or stdin."""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-c" or (a.startswith("-") and not a.startswith("--") and "c" in a[1:]):
            return (args[i + 1] if i + 1 < len(args) else None), args[i + 3 :]
        if a in ("-o", "-O", "--rcfile", "--init-file"):
            i += 2
            continue
        if a.startswith("-") or a.startswith("+"):
            i += 1
            continue
        content = memory.files.get(resolve(a, cwd, memory.links))
        return content, args[i + 1 :]
    return stdin, []


def _is_python_script(path: str, content: str) -> bool:
    return path.endswith(".py") or content.startswith("#!") and "python" in content.split("\n", 1)[0]


#: Pipeline stages that pass a file listing through, narrowed but still under the same roots.
_FILTERS = frozenset(
    {"grep", "egrep", "fgrep", "head", "tail", "sort", "uniq", "cat", "tr", "sed", "awk", "cut"}
)


#: ``go list -f`` templates printing a package's test files (``{{.TestGoFiles}}``, ``{{join .XTestGoFiles "\n"}}``).
_GO_TEST_FILES = re.compile(r"\{\{[^}]*\.X?TestGoFiles\b")


def _go_test_files(args: list[str]) -> list[str]:
    """The files ``go list -f '{{.TestGoFiles}}' PKG...`` prints: every ``*_test.go`` of each package
    folder (``./...``: of every folder below), as the shell glob that names the same files.

        >>> _go_test_files(["list", "-f", "{{.XTestGoFiles}}", "./..."])
        ['./**/*_test.go']
    """
    template = next((v for k, v in zip(args, args[1:], strict=False) if k == "-f"), "")
    template = template or next((a[3:] for a in args if a.startswith("-f=")), "")
    if not _GO_TEST_FILES.search(template):
        return []
    pkgs = [a for a in args[1:] if a.startswith((".", "/")) and a != template] or ["."]
    return [
        (p[: -len("/...")] + "/**" if p.endswith("/...") else p.rstrip("/")) + "/*_test.go" for p in pkgs[:4]
    ]


def _search_listing(out: list[SimpleCommand], memory: Memory) -> list[str]:
    """The files a search just before ``xargs`` prints, as `SEARCH` patterns under its roots.

    ``grep -rl word tests | xargs sed -i …`` edits files under ``tests`` as surely as
    ``find tests -exec sed -i … {} +`` does: the last search in `out` (``find ROOT…``, ``grep -l/-L …
    ROOT…``, ``rg -l/--files … ROOT``, ``git ls-files ROOT``), read back through filters that only narrow its
    lines (``grep -v``, ``head``, ``sort``), names ``SEARCH ROOT/**/PATTERN`` per root. Empty when the
    command before is not such a search, or searched outside its working directory.

        >>> c = SimpleCommand(["grep", "-rl", "x", "src/test"], "/r", "")
        >>> [p.replace(SEARCH, "~") for p in _search_listing([c], Memory())]
        ['~/r/src/test/**/*']
    """
    for cmd in reversed(out[-6:]):
        if not cmd.argv:
            return []
        name = basename(cmd.argv[0])
        args = cmd.argv[1:]
        flags = {a for a in args if a.startswith("-")}
        short = "".join(a[1:] for a in flags if not a.startswith("--"))
        words = [a for a in args if not a.startswith("-")]
        roots: list[str] | None = None
        pattern = "*"
        if name == "find":
            roots = []
            for a in args:
                if a.startswith(("-", "(", "!")):
                    break
                roots.append(a)
            for i, a in enumerate(args[:-1]):
                if a in ("-name", "-iname", "-path", "-ipath"):
                    pattern = args[i + 1]
            roots = roots or ["."]
        elif name in ("grep", "egrep", "fgrep", "rg") and (
            "l" in short
            or "L" in short
            or flags & {"--files-with-matches", "--files-without-match", "--files"}
        ):
            roots = words[1:] if "--files" not in flags else words
            roots = roots or ["."]
        elif name == "git" and args[:1] == ["ls-files"]:
            roots = list(words[1:]) or ["."]
        elif name == "go" and args[:1] == ["list"] and (files := _go_test_files(args)):
            return [resolve(f, cmd.cwd, memory.links) for f in files]
        elif name in ("grep", "egrep", "rg") and ("o" in short or "--only-matching" in flags) and words:
            # names cut out of another tool's output (``go vet -n | grep -o '[^ ]*_x_test.go'``): files
            # anywhere in the tree whose names end as the pattern's literal tail does
            tail = re.search(r"[\w.-]*\.\w+$", words[0].rstrip("$").replace("\\.", "."))
            if tail is None or len(tail.group(0)) < 4:
                return []
            roots, pattern = ["."], "*" + tail.group(0)
        elif name in _FILTERS:
            continue
        if roots is None:
            return []
        if name != "find" and roots and all(r.startswith(SEARCH) for r in roots[:4]):
            return roots[:4]  # ``xargs grep -l`` over an earlier listing: narrowed, the same files
        found = [resolve(r, cmd.cwd, memory.links).rstrip("/") for r in roots[:4]]
        if not all((p + "/").startswith(cmd.cwd.rstrip("/") + "/") or p == "" for p in found):
            return []  # a hunt outside the working tree: its items stay unknown, as the read rules expect
        return [SEARCH + p + "/**/" + pattern for p in found]
    return []


class Dispatcher:
    """Runs resolved commands for `shwalk.ShellAnalyzer` (which holds `memory`, `out`, `functions`)."""

    def run_argv(self, argv: list[str], f: Frame, via: str, stdin: str | None = None) -> str | None:
        """Run an already-split command (from xargs, find -exec, or a Python subprocess list)."""
        cmd = SimpleCommand(list(argv), f.cwd, shlex_join(argv)[:160], stdin, [], [], f.depth, via)
        mark = len(self.out)
        out = self._dispatch(cmd, f, dict(f.env))
        self.out.insert(mark, cmd)
        return out

    def _dispatch(self, cmd: SimpleCommand, f: Frame, env: dict[str, str]) -> str | None:
        """Interpret shell-level semantics (cd, eval, bash -c, xargs, find -exec, wrappers)."""
        argv = cmd.argv
        name = basename(argv[0]) if argv else ""
        if name in _WRAPPERS_WITH_ARG or name == "bundle" and argv[1:2] == ["exec"]:
            argv[:] = _strip_wrappers(argv)
            if not argv:
                return None
            name = basename(argv[0])
        elif not argv:
            return None
        args = argv[1:]
        depth = f.depth + 1
        if name in _ESCAPES:
            for script in shell_escapes(name, args):
                self._nested(script, f, depth, name)
        if name not in _SHELL_LEVEL and name not in self.functions:
            pass  # an ordinary program: none of the branches below applies
        elif name in ("cd", "pushd"):
            target = next((a for a in args if not a.startswith("-")), HOME)
            f.cwd = resolve(target, f.cwd, self.memory.links)
            return None
        elif name in ("export", "declare", "typeset", "local", "readonly"):
            # ``declare -x``/``-gx``/``typeset -x``: an export by another spelling
            exports = name == "export" or any(a[:1] == "-" and "x" in a for a in args)
            for a in args:
                if "=" in a and not a.startswith("-"):
                    k, v = a.split("=", 1)
                    f.env[k] = v
                    if exports and f.depth == 0 and not f.via:
                        self.memory.exports[k] = v  # the session's shell keeps it for later calls
            return None
        elif name == "alias":
            for a in args:
                if "=" in a:
                    k, v = a.split("=", 1)
                    self.memory.aliases[k] = v
            return None
        elif name == "read":
            names = [a for a in args if not a.startswith("-")]
            if names and cmd.stdin is not None:
                f.env[names[-1]] = cmd.stdin.rstrip("\n")
            return None
        elif name in self.functions and depth <= MAX_DEPTH:
            body, src = self.functions[name]
            sub = Frame(dict(f.env), f.cwd, args, src, f.depth, f.via)
            return self._walk(body, sub, cmd.stdin)
        elif name == "eval":
            self._nested(" ".join(args), f, depth, "eval")
            return None
        elif name in SHELLS or name in ("su",):
            script, pos = _shell_script(args, cmd.stdin, self.memory, f.cwd)
            if script is not None:
                self._nested(script, f, depth, name, pos)
            return None
        elif name in ("source", "."):
            if args:
                content = self.memory.files.get(resolve(args[0], f.cwd, self.memory.links))
                if content is not None:
                    self._nested(content, f, depth, "source", args[1:], share_env=True)
            return None
        elif name == "watch":
            rest = [a for a in args if not a.startswith("-")]
            if rest:
                self._nested(" ".join(rest), f, depth, "watch")
            return None
        elif name == "xargs":
            self._xargs(cmd, args, f, depth)
            return None
        elif name == "find":
            self._find_exec(cmd, args, f, depth)
            return None
        if "/" in argv[0]:
            content = self.memory.files.get(resolve(argv[0], f.cwd, self.memory.links))
            if content is not None and not _is_python_script(argv[0], content):
                self._nested(content, f, depth, argv[0], args)
        return pure_stdout(argv, cmd.stdin, self.memory, f.cwd) if name in PURE else None

    def _nested(
        self,
        script: str,
        f: Frame,
        depth: int,
        via: str,
        positional: list[str] | None = None,
        share_env: bool = False,
    ) -> None:
        if depth > MAX_DEPTH or not script.strip():
            return
        src = script.encode("utf-8", "surrogateescape")
        tree = parse_bytes(src)
        frame = Frame(f.env if share_env else dict(f.env), f.cwd, positional or [], src, depth, via)
        self._walk(tree.root_node, frame)
        if share_env:
            f.cwd = frame.cwd

    def _xargs(self, cmd: SimpleCommand, args: list[str], f: Frame, depth: int) -> None:
        i = 0
        replace = None
        takes_value = {"-I", "-i", "-n", "-P", "-L", "-s", "-d", "-E", "-a", "--max-args", "--max-procs"}
        while i < len(args) and args[i].startswith("-"):
            if args[i] in ("-I", "-i"):
                replace = args[i + 1] if i + 1 < len(args) else "{}"
            elif args[i].startswith(("-I", "--replace=")) or args[i] == "-i":
                replace = args[i].split("=", 1)[-1] if "=" in args[i] else args[i][2:] or "{}"
            if args[i] in takes_value:
                i += 1
            i += 1
        sub_argv = args[i:] or ["echo"]
        listed = _search_listing(self.out, self.memory) if cmd.stdin is None else None
        if cmd.stdin is not None:
            items = cmd.stdin.split()
        elif listed:
            items = listed
        else:
            items = [UNKNOWN] if replace else [SEARCH + resolve(UNKNOWN, f.cwd)]
        if replace:
            argvs = [[a.replace(replace, it) for a in sub_argv] for it in items[:16]]
        else:
            argvs = [sub_argv + items[:64]]
        sub = Frame(f.env, f.cwd, f.positional, f.src, depth, "xargs")
        for av in argvs:
            self.run_argv(av, sub, "xargs")

    def _find_exec(self, cmd: SimpleCommand, args: list[str], f: Frame, depth: int) -> None:
        roots: list[str] = []
        i = 0
        while i < len(args) and not args[i].startswith(("-", "(", "!")):
            roots.append(args[i])
            i += 1
        roots = roots or ["."]
        pattern = "*"
        j = i
        while j < len(args):
            a = args[j]
            if a in ("-name", "-iname", "-path", "-ipath", "-wholename", "-regex") and j + 1 < len(args):
                pattern = args[j + 1]
                j += 2
                continue
            if a in ("-exec", "-execdir", "-ok", "-okdir"):
                k = j + 1
                sub: list[str] = []
                while k < len(args) and args[k] not in (";", "+", "\\;"):
                    sub.append(args[k])
                    k += 1
                for root in roots[:4]:
                    match = SEARCH + resolve(root, f.cwd, self.memory.links).rstrip("/") + "/**/" + pattern
                    av = [match if s == "{}" else s.replace("{}", match) for s in sub]
                    if av:
                        frame = Frame(f.env, f.cwd, f.positional, f.src, depth, "find -exec")
                        self.run_argv(av, frame, "find -exec")
                j = k + 1
                continue
            j += 1
