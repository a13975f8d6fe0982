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
    detect(ToolCall("python -c", {"code": text}), CTX)


def test_odd_arguments():
    for call in [
        ToolCall("bash", {}),
        ToolCall("view", {"path": None}),
        ToolCall("run_tests", {"paths": "tests/hidden"}),
        ToolCall("unknown", {"x": 1}),
    ]:
        detect(call, CTX)
