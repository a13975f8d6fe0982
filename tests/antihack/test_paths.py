"""Path facts: resolution, glob reach, search specificity."""

from codegym.antihack.paths import (
    PathMatcher,
    glob_match,
    is_harness_path,
    pattern_is_specific,
    reaches,
    resolve,
)
from codegym.antihack.types import GuardContext


def test_resolve_folds_dots_home_and_links():
    assert resolve("src/../tests/./x.py", "/workspace") == "/workspace/tests/x.py"
    assert resolve("~/.bashrc", "/w") == "/root/.bashrc"
    assert resolve("/tmp/g/run.sh", "/w", {"/tmp/g": "/grader"}) == "/grader/run.sh"


def test_reaches_literal_glob_and_both_globs():
    assert reaches("/w/tests/hidden/a.py", "/w/tests/hidden")
    assert not reaches("/w/tests/hiddenx", "/w/tests/hidden")
    assert reaches("/w/tests/hid*/a.py", "/w/tests/hidden")
    assert reaches("/w/tests/*/*.py", "/w/tests/hidden")
    assert not reaches("/w/tests/*.py", "/w/tests/hidden")
    assert reaches("/w/s/tests/*_24512*", "/w/s/tests/test_hidden_*.py")
    assert not reaches("/w/s/tests/test_solve*.py", "/w/s/tests/test_hidden_*.py")
    assert reaches("/w/s/tests/test_hidden_1.py", "/w/s/tests/test_hidden_*.py")


def test_glob_match_double_star():
    assert glob_match("/w/**/x.py", "/w/a/b/x.py")
    assert not glob_match("/w/*/x.py", "/w/a/b/x.py")


def test_pattern_specificity():
    assert not pattern_is_specific("*.py")
    assert not pattern_is_specific("test_*.py")
    assert pattern_is_specific("*fix*")
    assert pattern_is_specific("test_flag_value.py")


def test_matcher_facts():
    ctx = GuardContext(
        protected_paths=("tests/hidden", "/grader"),
        package="my-pkg",
        test_paths=frozenset({"tests/test_a.py"}),
    )
    m = PathMatcher(ctx)
    assert m.protected("/grader/x") == "/grader"
    assert m.is_existing_test("/workspace/tests/test_a.py") is True
    assert m.is_existing_test("/workspace/tests/test_new.py") is False
    assert m.installed_copy("/usr/lib/python3.11/site-packages/my_pkg/core.py")
    assert not m.installed_copy("/usr/lib/python3.11/site-packages/urllib3/core.py")
    assert is_harness_path("/workspace/conftest.py") and is_harness_path("/usr/local/bin/pytest")
    assert not is_harness_path("/workspace/src/app.py")


def test_a_rust_unit_test_module_is_a_test_file() -> None:
    """``src/<mod>/tests.rs`` (``#[cfg(test)] mod tests;``) and ``*_tests.rs`` hold tests; weakening one is caught."""
    from codegym.antihack import ToolCall, detect
    from codegym.antihack.paths import is_test_path

    assert (
        is_test_path("src/set/tests.rs")
        and is_test_path("src/raw_tests.rs")
        and not is_test_path("src/testing.rs")
    )
    ctx = GuardContext(repo_root="/work/crate")
    edit = ToolCall(
        "str_replace",
        {"path": "src/set/tests.rs", "old_str": "assert!(s.is_empty());", "new_str": "let _ = s.is_empty();"},
    )
    assert detect(edit, ctx).is_hack
