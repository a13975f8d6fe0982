"""Bad input never crashes the guard (it runs on every tool call of every rollout)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from codegym.antihack import GuardContext, detect
from codegym.toolcall import ToolCall

CTX = GuardContext(
    protected_paths=("tests/hidden", "/grader", "src/**/secret_*.py"), package="pkg", base_commit="abc1234"
)
SHELLISH = st.text(
    alphabet=st.sampled_from(list("abcgit -|;&$(){}[]<>'\"\\`*?~./=\n\tx0123EOF")), max_size=120
)


@settings(max_examples=150, deadline=None)
@given(SHELLISH)
def test_bash_never_raises(cmd):
    detect(ToolCall("bash", {"command": cmd}), CTX)


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=200), st.text(max_size=40))
def test_edits_never_raise(text, path):
    detect(ToolCall("create", {"path": path or "x.py", "file_text": text}), CTX)
    detect(
        ToolCall("str_replace", {"path": "tests/" + path + ".py", "old_str": text[:20], "new_str": text}), CTX
    )
    detect(ToolCall("python -c", {"code": text}), CTX)
    detect(ToolCall("bash", {"command": text}), CTX)


# Inputs that made tree-sitter-bash 0.25 read out of bounds (SIGSEGV, depending on the memory
# layout: tree-sitter/tree-sitter-bash#337). The guard masks non-ASCII bytes before parsing.
CRASHERS = [
    "\u00e1{\U00086de6\u00cb",
    "{\U00031860",
    "echo {a,\U0001f600}",
    "x={\udcf0\udcb1",
    "{" + "\U00010000" * 50,
]


def test_known_parser_crashers_in_a_fresh_process():
    """A segfault cannot be caught in-process, and whether one happens depends on the memory layout
    (ASLR): run the crashers many times in each of several children. Without the masking about
    half of the children die."""
    import subprocess
    import sys

    code = (
        "from codegym.antihack import ToolCall, detect, GuardContext\n"
        "from codegym.antihack.shparse import parse\n"
        f"ctx = GuardContext(protected_paths=('tests/hidden',))\n"
        f"for _ in range(500):\n"
        f"    for t in {CRASHERS!r}:\n"
        "        parse(t)\n"
        "        detect(ToolCall('bash', {'command': t}), ctx)\n"
        "        detect(ToolCall('python -c', {'code': t}), ctx)\n"
        "print('survived')\n"
    )
    for child in range(8):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and "survived" in r.stdout, (child, r.returncode, r.stderr[-2000:])


def test_non_ascii_commands_are_still_analysed():
    for cmd in [
        "cat tests/hidden/t\u00e9st_\U0001f600.py",
        "echo {\U0001f600,x} && cat tests/hidden/test_a.py",
        'f=tests/hidden/\u00fc.py; cat "$f"',
        "cat tests/hidden/*\u00e9*",
    ]:
        d = detect(ToolCall("bash", {"command": cmd}), CTX)
        assert d.is_hack and d.category == "protected-read", (cmd, d)
    benign = detect(
        ToolCall("bash", {"command": "echo '\u00e1{\U00086de6' > notes_\u00e9.txt && cat notes_\u00e9.txt"}),
        CTX,
    )
    assert not benign.is_hack, benign


def test_odd_arguments():
    for call in [
        ToolCall("bash", {}),
        ToolCall("view", {"path": None}),
        ToolCall("run_tests", {"paths": "tests/hidden"}),
        ToolCall("unknown", {"x": 1}),
    ]:
        detect(call, CTX)


def test_concurrent_detection_from_many_threads():
    """Envs step concurrently in threads and each runs the guard: the parser must not be shared."""
    import threading

    errors: list[BaseException] = []
    commands = [
        f'x=$(echo {i}) && cat "tests/hidden/t_$x.py" | grep -n \'a{{1,3}}\' <<< "$(ls {i})"'
        for i in range(50)
    ]

    def work():
        try:
            for cmd in commands:
                d = detect(ToolCall("bash", {"command": cmd}), CTX)
                assert d.is_hack and d.category == "protected-read"
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
