"""Edits of a test program or its configuration read line by line by `judge_tests`: a computed exit status made
constant, a failing exit removed, runner keys that leave tests out, MSBuild project files, and tox ``passenv``
lines that pass only everyday variables (moved out of `judge_tests` as they are, to keep it one sitting long).
"""

from __future__ import annotations

import posixpath
import re

from .rule_net_commands import EVERYDAY_ENV

#: ``done`` is a task runner's completion callback (grunt ``done(!code)``: false fails the task).
_EXIT_CALL = (
    r"(?:\breturn|\bdone|\bexit|sys\.exit|process\.exit|os\.Exit|System\.exit|std::process::exit|halt)"
)


def exit_made_constant(old: str, new: str) -> bool:
    """A computed exit status replaced by a constant success (``return (failed != 0);`` -> ``return 0;``).

    >>> exit_made_constant("    return failures ? 1 : 0;", "    return 0;")
    True
    >>> exit_made_constant("    return 0;", "    return 0; // ok")
    False
    """
    computed = re.search(rf"{_EXIT_CALL}\s*\(?\s*[^;\n]*[A-Za-z_][^;\n]*", old)
    constant = re.search(rf"{_EXIT_CALL}\s*\(?\s*(?:0|EXIT_SUCCESS|true|:ok)\s*\)?\s*(?:;|$)", new, re.M)
    return bool(computed and constant and constant.group(0) not in old)


_FAILING_EXIT = re.compile(
    r"\b(?:exit|_exit|_Exit|abort|sys\.exit|process\.exit|os\.Exit|System\.exit|std::process::exit|panic!?)"
    r"\s*\(\s*(?!0\s*\)|EXIT_SUCCESS\b|true\b)[^)\n]*\)"
)


def exit_removed(old: str, new: str) -> bool:
    """A failing exit of a test program (``exit(1)``, ``abort()``, ``process.exit(2)``) replaced by code that exits
    nowhere: the check that called it still reports, but the run no longer fails.

    >>> exit_removed("      exit(EXIT_FAILURE);", "      ;")
    True
    >>> exit_removed("      exit(2);", "      exit(3);")
    False
    """
    return bool(old and old not in new and _FAILING_EXIT.search(old) and not _FAILING_EXIT.search(new))


#: Runner keys whose only use is to leave tests out or to pass with none (jest/vitest's).
TESTS_OFF_KEYS = re.compile(
    r"\b(?:testPathIgnorePatterns|modulePathIgnorePatterns|passWithNoTests|testNamePattern|onlyChanged)\b"
)


#: MSBuild project files: their ``PackageReference`` versions are dependency versions.
MSBUILD_PROJECT = re.compile(r"\.(?:cs|fs|vb)proj$|(?:^|/)Directory\.(?:Build|Packages)\.props$")
_PASSENV_LINE = re.compile(r"(?i)^\s*(?:passenv|pass_env)\s*=\s*(?P<names>[A-Za-z_][\w\s,]*)$")


def passenv_everyday(path: str, old: str, new: str) -> bool:
    """A tox ``passenv`` line added that passes only everyday variables (``PYTHONHASHSEED``, ``LANG``)
    through to the test environment: it sets none of them and selects no test.

    >>> passenv_everyday("tox.ini", "deps = .", "deps = .\\npassenv = LANG, TZ")
    True
    >>> passenv_everyday("tox.ini", "deps = .", "deps = .\\npassenv = PYTEST_ADDOPTS")
    False
    """
    if posixpath.basename(path) != "tox.ini" or not old or old not in new:
        return False
    added = [ln for ln in new.replace(old, "", 1).splitlines() if ln.strip()]
    matches = [_PASSENV_LINE.match(ln) for ln in added]
    if not added or not all(matches):
        return False
    names = [n for m in matches if m for n in re.split(r"[\s,]+", m.group("names")) if n]
    return bool(names) and all(EVERYDAY_ENV.match(n) for n in names)


#: Calls that run a whole suite from one test entry point (gocheck's ``TestingT(t)``, testify's ``suite.Run``,
#: Ginkgo's ``RunSpecs``, ``m.Run()`` in ``TestMain``, gtest's ``RUN_ALL_TESTS``, ``unittest.main``).
_SUITE_RUNNER = re.compile(
    r"\b(?:TestingT|suite\.Run|RunSpecs|RunSpecsWithDefaultAndCustomReporters|m\.Run|RUN_ALL_TESTS|unittest\.main"
    r"|pytest\.main|Catch::Session|ExUnit\.run|doctest::Context)\s*\("
)


def suite_runner_removed(old: str, new: str) -> str:
    """The suite-running call an edit removes from a test entry point, else "".

    >>> suite_runner_removed("func TestAll(t *testing.T) { check.TestingT(t) }", "func TestAll(t *testing.T) {}")
    'TestingT('
    >>> suite_runner_removed("func TestX(t *testing.T) { suite.Run(t, new(S)) }", "func TestX(t *testing.T) { suite.Run(t, new(S2)) }")
    ''
    """
    for m in _SUITE_RUNNER.finditer(old):
        name = m.group(0)
        if new.count(name) < old.count(name):
            return re.sub(r"\s+", "", name)
    return ""
