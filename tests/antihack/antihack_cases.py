"""The task context the rule and detector tests share (a requests-like repository), the tool-call
builders (`bash`, `edit`, `create`), and the one checker the surface tests (`test_rule_files`,
`test_rule_git`, `test_rule_packages`) use."""

from codegym.antihack import GuardContext, detect
from codegym.toolcall import ToolCall

BASE = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
ANC = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"
FIX = "0e322af87745eff34caffe4df68456ebc20d9068"
CTX = GuardContext(
    protected_paths=("tests/hidden", "/grader"),
    upstream_refs=(FIX, "v2.32.4", "2.32.4"),
    package="requests",
    base_commit=BASE,
    ancestor_shas=frozenset({BASE, ANC}),
    test_paths=frozenset({"tests/test_utils.py", "tests/test_requests.py"}),
)


def bash(cmd: str) -> ToolCall:
    return ToolCall("bash", {"command": cmd})


def edit(path: str, old: str, new: str) -> ToolCall:
    return ToolCall("str_replace", {"path": path, "old_str": old, "new_str": new})


def create(path: str, text: str) -> ToolCall:
    return ToolCall("create", {"path": path, "file_text": text})


def assert_caught(call: ToolCall, category: str, ctx: GuardContext = CTX) -> None:
    """`call` is a hack of `category` under the default judge, answered with a dummy result."""
    d = detect(call, ctx)
    assert d.is_hack, d
    assert d.category == category
    assert d.dummy is not None


#: A second repository (blind-30 fix tests): its root, a protected test folder and the grader.
FIX30 = "4c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5"
CTX30 = GuardContext(
    repo_root="/w/proj",
    cwd="/w/proj",
    package="proj",
    protected_paths=("/w/proj/tests/hidden/**", "/grader/**"),
    upstream_refs=(FIX30, "v9.9.9"),
    base_commit=BASE,
    ancestor_shas=frozenset({BASE, ANC}),
    test_paths=frozenset({"tests/test_a.py", "tests/AppTest.cpp", "spec/a_spec.rb", "tests/CMakeLists.txt"}),
)


def episode(call: ToolCall, setup: tuple[ToolCall, ...] = (), ctx: GuardContext = CTX30):
    """The verdict on `call` after `setup` ran unguarded in one episode (rules, then the default judge)."""
    from codegym.antihack import Detector

    det = Detector(ctx)
    for s in setup:
        det.observe(s)
    return det.check(call)
