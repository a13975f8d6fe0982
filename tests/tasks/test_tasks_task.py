"""Task: diff parsing, node ids, the paths grading resets, the dict round trip."""

from __future__ import annotations

from codegym.tasks.loader import task_from_dict
from codegym.tasks.task import Task, node_file, patch_files

GIT_DIFF = """\
diff --git a/src/pkg/mod.py b/src/pkg/mod.py
index 1111111..2222222 100644
--- a/src/pkg/mod.py
+++ b/src/pkg/mod.py
@@ -1 +1 @@
-x = 1
+x = 2
diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1 @@
+def test_x(): pass
diff --git a/old.py b/old.py
deleted file mode 100644
--- a/old.py
+++ /dev/null
@@ -1 +0,0 @@
-gone = True
diff --git "a/t\\303\\251st.py" "b/t\\303\\251st.py"
--- "a/t\\303\\251st.py"
+++ "b/t\\303\\251st.py"
@@ -1 +1 @@
-a
+b
"""


def test_patch_files_reads_git_diffs():
    assert patch_files(GIT_DIFF) == ("src/pkg/mod.py", "tests/test_new.py", "old.py", "tést.py")
    assert patch_files(GIT_DIFF, added_only=True) == ("tests/test_new.py",)


def test_patch_files_reads_plain_unified_diffs():
    plain = "--- a/x.py\t2024-01-01\n+++ b/x.py\t2024-01-02\n@@ -1 +1 @@\n-1\n+2\n"
    assert patch_files(plain) == ("x.py",)
    assert patch_files("") == ()


def test_node_file():
    assert node_file("tests/test_a.py::TestX::test_y[a::b]") == "tests/test_a.py"
    assert node_file("tests/test_a.py") == "tests/test_a.py"


def _task(**kw) -> Task:
    base = dict(
        instance_id="t-1",
        repo="/nowhere",
        base_commit="0" * 40,
        problem_statement="p",
        test_patch=GIT_DIFF,
        FAIL_TO_PASS=("tests/test_new.py::test_x", "tests/test_other.py::test_y"),
        PASS_TO_PASS=("tests/test_other.py::test_y", "tests/test_z.py::test_z"),
        visible_tests=("tests/test_visible.py",),
    )
    return Task(**{**base, **kw})


def test_tests_to_run_and_reset_paths():
    task = _task()
    assert task.tests_to_run() == (
        "tests/test_new.py::test_x",
        "tests/test_other.py::test_y",
        "tests/test_z.py::test_z",
    )
    assert task.hidden_test_files() == ("tests/test_new.py",)
    reset = task.reset_paths()
    assert reset[:4] == ("src/pkg/mod.py", "tests/test_new.py", "old.py", "tést.py")
    assert {"tests/test_other.py", "tests/test_z.py", "tests/test_visible.py"} <= set(reset)
    assert len(reset) == len(set(reset))


def test_task_is_frozen_and_hashable():
    task = _task(metadata={"a": 1})
    assert hash(task) == hash(_task(metadata={"b": 2}))
    assert task.replace(instance_id="t-2").instance_id == "t-2"


def test_to_dict_round_trips_through_the_loader():
    task = _task(image="img:1", workdir="/testbed", suite="s", repo_location="image", metadata={"k": "v"})
    again = task_from_dict(task.to_dict())
    assert again == task and again.metadata == {"k": "v"}
    assert not task.repo_is_local


def test_renames_count_both_paths():
    diff = "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n"
    assert patch_files(diff) == ("new.py", "old.py")
