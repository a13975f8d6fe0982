"""The graded pytest run: streams each test's outcome, as it happens, out of the graded process.

Shipped as source and run by the grader user (`python3 -I -B -c RUNNER_SOURCE`), with its
instructions on stdin (read, then closed, before any graded code is imported):

    {"files": [...], "ids": [...], "expected": {file: {qualname: first line}}, "nonce": "...",
     "seed": 123, "pythonpath": ["src"], "kill_strays": true, "collect_only": false}

Neither the test paths nor the selected ids are on the command line or on disk. The process's
original stdout is kept as a private events channel and fd 1 is pointed at stderr, so
whatever the graded code prints never reaches the channel by accident. Each event is one JSON
line carrying the nonce; `codegym.tasks.grade_stream` (the collector, on the host, outside the
sandbox) builds the outcomes from them and treats a missing or inconsistent stream as a
failure:

    hello, collected(ids), [collect_error(path)], then per test start(id), phase(id, when,
    exc, skip, tampered), end(id); finish(exitstatus) last.

Outcomes are read from the exception info of the outermost hook wrapper of each phase (not
from pytest's reports, which plugins and graded code can rewrite); a `unittest.TestCase`
reports its failures to the item instead of raising them (`result.addFailure(...)`), so for
those the runner also listens to the item's result methods during the call. Before each phase
the runner checks that the collected test function is still the one that runs: the same
function (or, for a method, the same function bound to an instance of the collected class:
pytest < 8 rebinds a TestCase method in setup) and code object as at collection, defined in
the graded file on the line the pristine source gives, and that pytest's and pluggy's call
machinery is unchanged since start-up. The order
of the tests is shuffled with the run's seed. Standard library and pytest only.
"""

import json
import os
import sys

_write, _dumps, _getpid = os.write, json.dumps, os.getpid
_EVENTS = os.dup(1)
os.dup2(2, 1)
_CFG = json.loads(sys.stdin.buffer.read().decode("utf-8"))
sys.stdin.close()
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
_NONCE = _CFG["nonce"]


def _emit(kind, **fields):
    fields["e"] = kind
    fields["n"] = _NONCE
    _write(_EVENTS, (_dumps(fields) + "\n").encode("utf-8"))


import random  # noqa: E402

import _pytest.python  # noqa: E402
import _pytest.runner  # noqa: E402
import _pytest.unittest  # noqa: E402
import pytest  # noqa: E402  (imported before the workspace joins sys.path: it cannot be shadowed)

_WATCHED = [
    (_pytest.python.Function, "runtest"), (_pytest.python, "pytest_pyfunc_call"),
    (_pytest.runner.CallInfo, "from_call"), (_pytest.runner, "call_runtest_hook"),
    (_pytest.runner, "runtestprotocol"), (_pytest.runner, "pytest_runtest_call"),
    (_pytest.runner, "call_and_report"),
]
try:
    import pluggy._callers as _pluggy_callers

    _WATCHED.append((_pluggy_callers, "_multicall"))
except ImportError:
    pass


def _code_of(fn):
    fn = getattr(fn, "__func__", fn)
    return getattr(fn, "__code__", None)


def _snapshot_machinery():
    out = []
    for owner, name in _WATCHED:
        obj = owner.__dict__.get(name, getattr(owner, name, None))
        out.append((owner, name, obj, _code_of(obj)))
    return out


_MACHINERY = _snapshot_machinery()


def _machinery_intact():
    for owner, name, obj, code in _MACHINERY:
        now = owner.__dict__.get(name, getattr(owner, name, None))
        if now is not obj or _code_of(now) is not code:
            return False
    return True


def _innermost(fn):
    seen = 0
    fn = getattr(fn, "__func__", fn)
    while hasattr(fn, "__wrapped__") and seen < 20:
        fn = getattr(fn.__wrapped__, "__func__", fn.__wrapped__)
        seen += 1
    return fn


def _wanted(nodeid, wanted):
    if nodeid in wanted or nodeid.split("[", 1)[0] in wanted:
        return True
    parts = nodeid.split("::")
    return any("::".join(parts[:i]) in wanted for i in range(1, len(parts)))


_CORE = ("pytest", "_pytest", "pluggy", "py")  # what this very run stands on


def _arrange_sys_path():
    """The project first, after the standard library only: nothing installed in the image can
    shadow it, and it cannot shadow the standard library or pytest (imported above). A module
    of the project that pytest happened to import from the image already (`attr`, `iniconfig`)
    is dropped from `sys.modules`, so the tests import the project's own."""
    root = os.getcwd()
    entries = [root] + [os.path.join(root, p) for p in _CFG.get("pythonpath", [])]
    if os.path.isdir(os.path.join(root, "src")):
        entries.append(os.path.join(root, "src"))
    site_idx = next((i for i, p in enumerate(sys.path) if "-packages" in p), len(sys.path))
    sys.path[site_idx:site_idx] = [p for p in entries if p not in sys.path]
    for name in _CFG.get("modules", []):
        if name in _CORE or name in sys.builtin_module_names or name in getattr(sys, "stdlib_module_names", ()):
            continue
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[loaded]


def _ancestors():
    pids, pid = set(), _getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            with open("/proc/%d/stat" % pid) as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def _kill_strays():
    """Every other process of this user dies before the run is declared finished (never as root:
    on a host that would be the user's own programs)."""
    import signal

    if not _CFG.get("kill_strays") or os.getuid() == 0:
        return
    spare, uid = _ancestors(), os.getuid()
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in spare:
            try:
                if os.stat("/proc/" + name).st_uid == uid:
                    os.kill(int(name), signal.SIGKILL)
            except OSError:
                pass


_MethodType = type(_emit.__get__(0))  # types.MethodType, without importing more


def _same_test(fn, fn0, cls0, _method=_MethodType):
    """Whether `fn` is still the collected test `fn0`: the very object or, for a method, a binding
    of the very same function to an instance of exactly the collected class `cls0` (pytest < 8
    collects a `unittest.TestCase` method as its plain function and binds it to a new instance
    in setup). `type()` is not fooled by a look-alike carrying a `__func__`: only a real bound
    method qualifies, and whatever runs is the collected function's code."""
    if fn is fn0:
        return True
    func0 = fn0.__func__ if type(fn0) is _method else fn0
    return (type(fn) is _method and fn.__func__ is func0 and cls0 is not None
            and type(fn.__self__) is cls0)


def _tampered_item(rec, item):
    """Why `item`'s test function is not the collected one from the graded file, or None."""
    fn0, code0, cls0 = rec.identity.get(item.nodeid, (None, None, None))
    if code0 is None:  # not a Python function item (a doctest, a plugin's item)
        return None
    fn = getattr(item, "obj", None)
    code = _code_of(_innermost(fn))
    if not _same_test(fn, fn0, cls0) or code is not code0:
        return "the test function changed after collection"
    lines = rec.expected.get(os.path.abspath(str(getattr(item, "path", getattr(item, "fspath", "")))))
    if lines is not None:
        qualname = ".".join(p for p in item.nodeid.split("[", 1)[0].split("::")[1:] if p != "()")
        line = lines.get(qualname)
        if line is not None and (os.path.abspath(code.co_filename) != os.path.abspath(str(item.path))
                                 or code.co_firstlineno != line):
            return "the test function is not the one in the graded file"
    return None


_RESULT_CALLS = {"addError": "failed", "addFailure": "failed", "addUnexpectedSuccess": "failed",
                 "addSubTest": "subtest", "addSkip": "skip", "addExpectedFailure": "skip"}


def _exc_name(exc_info):
    kind = exc_info[0] if isinstance(exc_info, tuple) and exc_info else getattr(exc_info, "type", None)
    return kind.__name__ if isinstance(kind, type) else "Failed"


def _listen(item, seen):
    """A `unittest.TestCase` reports its failures to the item as its result object
    (`result.addFailure(test, exc_info)`) and never raises them through the call phase: each of
    those calls, on this item only, is noted in `seen` as (kind, exception name) before pytest's
    own method runs. Returns the listeners installed, to check and remove after the phase."""
    installed = {}
    for name, kind in _RESULT_CALLS.items():
        method = getattr(type(item), name, None)
        if method is None:  # absent in this pytest (addSubTest before 8): unittest must not see one
            continue

        def listener(*args, _m=method, _name=name, _kind=kind, **kwargs):
            if _kind == "subtest":  # addSubTest(test_case, subtest, exc_info or None on success)
                exc = args[2] if len(args) > 2 else kwargs.get("exc_info")
                if exc is not None:
                    name_ = _exc_name(exc)
                    skipped = name_ in ("Skipped", "SkipTest", "XFailed")
                    seen.append(("skip" if skipped else "failed", name_))
            elif _kind == "failed":
                seen.append(("failed", _exc_name(args[1]) if len(args) > 1 else "Failed"))
            else:
                seen.append(("skip", "Skipped"))
            return _m(item, *args, **kwargs)

        item.__dict__[name] = installed[name] = listener
    return installed


def _phase(rec, item, when, _intact=_machinery_intact, _check=_tampered_item, _send=_emit):
    """One phase's outcome, from the exception info the outermost wrapper sees (and, for a
    unittest-style test's call, from what the test case reported to the item: `_listen`)."""
    tampered = "pytest's call machinery was replaced" if not _intact() else _check(rec, item)
    seen, listeners = [], {}
    if when == "call" and isinstance(item, _pytest.unittest.TestCaseFunction):
        listeners = _listen(item, seen)
    outcome = yield
    exc = outcome.excinfo
    name = exc[0].__name__ if exc else None
    skip = bool(exc) and issubclass(exc[0], (pytest.skip.Exception, pytest.xfail.Exception))
    for attr, listener in listeners.items():
        if item.__dict__.pop(attr, None) is not listener:
            tampered = tampered or "the test's result reporting was replaced"
    if not exc and seen:
        failures = [n for k, n in seen if k == "failed"]
        name, skip = (failures[0], False) if failures else (seen[0][1], True)
    _send("phase", id=item.nodeid, when=when, exc=name, skip=skip, tampered=tampered)


class Recorder:
    """The plugin: selection, shuffling, identity checks and the event stream."""

    def __init__(self):
        self.wanted = set(_CFG["ids"])
        self.expected = {os.path.abspath(f): lines for f, lines in _CFG.get("expected", {}).items()}
        self.identity = {}
        self.started = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config):
        self.started = True
        _emit("hello", pid=_getpid())

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collectreport(self, report):
        yield
        if report.failed:
            _emit("collect_error", path=report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        keep = [item for item in items if _wanted(item.nodeid, self.wanted)]
        drop = [item for item in items if not _wanted(item.nodeid, self.wanted)]
        if drop:
            config.hook.pytest_deselected(items=drop)
        random.Random(_CFG.get("seed", 0)).shuffle(keep)
        items[:] = keep
        for item in keep:
            fn = getattr(item, "obj", None)
            cls = type(fn.__self__) if type(fn) is _MethodType else getattr(item, "cls", None)
            self.identity[item.nodeid] = (fn, _code_of(_innermost(fn)), cls)
        _emit("collected", ids=[item.nodeid for item in keep])

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        _emit("start", id=item.nodeid)
        yield
        _emit("end", id=item.nodeid)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item, _phase=_phase):
        yield from _phase(self, item, "setup")

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item, _phase=_phase):
        yield from _phase(self, item, "call")

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_teardown(self, item, nextitem, _phase=_phase):
        yield from _phase(self, item, "teardown")

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus):
        _kill_strays()
        _emit("finish", exitstatus=int(exitstatus))


def _watch_own_code():
    """The recorder's own functions join the watched machinery: graded code that swaps one of
    them (found through `gc` or `sys.modules["__main__"]`) marks every later test tampered."""
    own = [(Recorder, name) for name, value in vars(Recorder).items() if callable(value)]
    own += [(sys.modules[__name__], name) for name in ("_emit", "_tampered_item", "_same_test", "_innermost",
                                                        "_code_of", "_machinery_intact", "_phase", "_listen",
                                                        "_exc_name")]
    _WATCHED.extend(own)
    _MACHINERY[:] = _snapshot_machinery()


def main():
    _watch_own_code()
    _arrange_sys_path()
    args = ["-p", "no:cacheprovider", "-p", "no:junitxml", "-o", "addopts=", "--rootdir=.",
            "--continue-on-collection-errors", "-q", "-s", "-W", "ignore::pytest.PytestUnknownMarkWarning",
            "--"] + list(_CFG["files"])
    if _CFG.get("collect_only"):  # which tests can be collected at all (grading's check at base)
        args.insert(0, "--collect-only")
    recorder = Recorder()
    try:
        code = pytest.main(args, plugins=[recorder])
        if not recorder.started and int(code) == 4:  # pytest refused the configuration before running
            _emit("usage_error")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # no atexit handler of the graded code runs after the stream is finished


main()
