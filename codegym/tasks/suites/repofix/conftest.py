"""The bug folders are task data, not the project's tests: pytest collects nothing here, neither
test files nor doctest modules (the root conftest.py collects every module under codegym/).

tests/tasks/test_repofix_dirs.py runs each folder's tests in a copy of its own.
"""

collect_ignore_glob = ["*"]
