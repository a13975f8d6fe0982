"""Bad input never crashes the guard (it runs on every tool call of every rollout)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from codegym.antihack import GuardContext, ToolCall, detect

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
    # ASCII only here: some non-ASCII snippets crash tree-sitter-bash inside the parser (a known,
    # open bug: see the project notes), which no Python-level guard can catch.
    detect(ToolCall("python -c", {"code": text.encode("ascii", "ignore").decode()}), CTX)


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
    commands = [f"x=$(echo {i}) && cat \"tests/hidden/t_$x.py\" | grep -n 'a{{1,3}}' <<< \"$(ls {i})\""
                for i in range(50)]

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
