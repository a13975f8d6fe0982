"""load_tasks: JSONL lines in SWE-bench's format; bad lines are reported, good ones load."""

from __future__ import annotations

import json

import pytest

from codegym.tasks.loader import (
    TaskLoadError,
    TaskLoadErrors,
    load_tasks,
    read_tasks_jsonl,
    write_tasks_jsonl,
)


def _line(**kw) -> dict:
    base = {
        "instance_id": "ok-1",
        "repo": "repos/calc.git",
        "base_commit": "a" * 40,
        "problem_statement": "fix add",
        "patch": "",
        "test_patch": "",
        "FAIL_TO_PASS": ["tests/test_add.py::test_add"],
        "PASS_TO_PASS": [],
    }
    base.update(kw)
    return base


@pytest.fixture
def jsonl(tmp_path):
    (tmp_path / "repos" / "calc.git").mkdir(parents=True)
    missing_field = _line(instance_id="no-base")
    del missing_field["base_commit"]
    lines = [
        json.dumps(_line(upstream_refs=["v1.0.1"], version="3.0", hints_text="h")),
        '{"instance_id": "broken", "repo": ',
        json.dumps(missing_field),
        json.dumps(
            _line(
                instance_id="swebench-style",
                FAIL_TO_PASS=json.dumps(["tests/a.py::t1", "tests/a.py::t2"]),
                PASS_TO_PASS="[]",
                repo="django/django",
                image="sweb.eval.x86_64.django__django-1:latest",
                workdir="/testbed",
                repo_location="image",
            )
        ),
        "",
        json.dumps(_line(instance_id="bad-list", PASS_TO_PASS="not json")),
        json.dumps(_line(instance_id="ok-1")),
    ]
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_good_lines_load_and_bad_lines_are_reported(jsonl, caplog):
    tasks = load_tasks(str(jsonl))
    assert [t.instance_id for t in tasks] == ["ok-1", "swebench-style"]

    ok, swe = tasks
    assert ok.repo == str(jsonl.parent / "repos" / "calc.git")  # relative to the file
    assert ok.upstream_refs == ("v1.0.1",)
    assert ok.metadata == {"version": "3.0", "hints_text": "h"}
    assert ok.suite == "tasks" and ok.workdir == "/workspace" and ok.image is None
    assert swe.FAIL_TO_PASS == ("tests/a.py::t1", "tests/a.py::t2") and swe.PASS_TO_PASS == ()
    assert swe.repo == "django/django" and not swe.repo_is_local
    assert swe.workdir == "/testbed" and swe.image.startswith("sweb.eval")

    errors = {(e.line, e.field): e for e in tasks.errors}
    assert set(errors) == {(2, None), (3, "base_commit"), (6, "PASS_TO_PASS"), (7, "instance_id")}
    for err in tasks.errors:
        assert str(jsonl) in str(err) and f":{err.line}" in str(err)
    assert "invalid JSON" in str(errors[2, None])
    assert "missing required field" in str(errors[3, "base_commit"])
    assert "field 'PASS_TO_PASS'" in str(errors[6, "PASS_TO_PASS"])
    assert "duplicate of line 1" in str(errors[7, "instance_id"])
    assert len([r for r in caplog.records if r.levelname == "WARNING"]) == 4


def test_strict_raises_a_group_that_keeps_the_good_tasks(jsonl):
    with pytest.raises(TaskLoadErrors) as info:
        load_tasks(jsonl, strict=True)
    group = info.value
    assert len(group.exceptions) == 4 and all(isinstance(e, TaskLoadError) for e in group.exceptions)
    assert [t.instance_id for t in group.tasks] == ["ok-1", "swebench-style"]
    missing, rest = group.split(lambda e: isinstance(e, TaskLoadError) and e.field == "base_commit")
    assert isinstance(missing, TaskLoadErrors) and missing.tasks == group.tasks


def test_type_errors_name_the_field(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps(_line(FAIL_TO_PASS=[1, 2])),
                json.dumps(_line(instance_id="a/b")),
                json.dumps(_line(instance_id="x", FAIL_TO_PASS=[])),
                json.dumps(_line(instance_id="y", image=3)),
                json.dumps([1, 2]),
            ]
        )
    )
    result = read_tasks_jsonl(path)
    assert list(result) == []
    assert [(e.line, e.field) for e in result.errors] == [
        (1, "FAIL_TO_PASS"),
        (2, "instance_id"),
        (3, "FAIL_TO_PASS"),
        (4, "image"),
        (5, None),
    ]


def test_write_then_read_round_trip(jsonl, tmp_path):
    tasks = load_tasks(jsonl)
    out = tmp_path / "copy.jsonl"
    write_tasks_jsonl(tasks, out, relative_to=tmp_path)
    assert json.loads(out.read_text().splitlines()[0])["repo"] == "repos/calc.git"
    again = read_tasks_jsonl(out)
    assert [t.replace(suite="x") for t in again] == [t.replace(suite="x") for t in tasks]


def test_unknown_source():
    with pytest.raises(FileNotFoundError, match="humaneval"):
        load_tasks("no-such-suite")


def test_a_node_id_naming_a_missing_file_is_a_load_error(calc_repo, tmp_path):
    # tests/test_calc.py is at base, tests/test_add.py is created by test_patch, tests/test_gone.py
    # is neither: that task cannot load, and the error names the file; the others still load.
    task = calc_repo.task
    gone = task.replace(instance_id="calc-gone", PASS_TO_PASS=("tests/test_gone.py::test_x",))
    in_dir = task.replace(instance_id="calc-dir", PASS_TO_PASS=("tests",))
    path = tmp_path / "tasks.jsonl"
    write_tasks_jsonl([task, gone, in_dir], path)
    loaded = load_tasks(path)
    assert [t.instance_id for t in loaded] == ["calc-1", "calc-dir"]
    (err,) = loaded.errors
    assert err.line == 2 and err.field == "PASS_TO_PASS"
    assert "tests/test_gone.py" in str(err) and "neither in the repository at base_commit" in str(err)
    # tasks with their own test command (non-pytest ids) are not checked
    odd = task.replace(instance_id="calc-cmd", FAIL_TO_PASS=("test_add (tests.test_add)",), test_cmd="true",
                       log_parser="unittest")
    write_tasks_jsonl([odd], path)
    assert not load_tasks(path).errors
