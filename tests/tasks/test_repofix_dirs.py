"""The repofix bug folders: real pytest on each one's code, before and after its fix.patch.

Every folder is copied the way the grader lays a task out (the hidden test files written over
`tests/`), run with the real pytest at the base, then with `git apply fix.patch`: the visible
tests pass at both, the hidden FAIL_TO_PASS tests fail at the base and pass after the fix.
Two pytest runs cover all folders (importlib import mode: every folder's `tests/` side by side).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from calc_fixtures import git

from codegym.tasks.gitrepo import file_diff
from codegym.tasks.loader import load_tasks
from codegym.tasks.suites._common import test_node_ids as node_ids
from codegym.tasks.suites.repofix_files import (
    BUGS_DIR,
    apply_patch,
    bug_folders,
    data_fingerprint,
    load_bug,
    load_bugs,
)

FOLDERS = bug_folders()


def _lay_out(folder: Path, dest: Path) -> Path:
    """`folder`'s base code and visible tests, with its hidden test files written over tests/.

    The copy is `task_<package>`, so that neither the import path nor pytest's module names
    see the folder itself as the package."""
    root = dest / f"task_{folder.name}"
    shutil.copytree(folder, root, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    for hidden in (root / "hidden").iterdir():
        shutil.copyfile(hidden, root / "tests" / hidden.name)
    shutil.rmtree(root / "hidden")
    return root


def _pytest_outcomes(root: Path, roots: list[Path]) -> dict[str, str]:
    """{test function id relative to `root`: PASSED, or FAILED when any of its cases failed or
    errored} from one real pytest run."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "--import-mode=importlib",
         "--rootdir", str(root), "-o", "addopts=", "-o", "testpaths=", str(root)],
        cwd=root, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(map(str, roots)), "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    outcomes: dict[str, str] = {}
    for m in re.finditer(r"^(PASSED|FAILED|ERROR) ([^\s\[]+::[^\s\[]+)", proc.stdout, re.M):
        outcomes[m[2]] = (
            "PASSED" if m[1] == "PASSED" and outcomes.get(m[2], "PASSED") == "PASSED" else "FAILED"
        )
    assert outcomes, proc.stdout[-3000:] + proc.stderr[-3000:]
    return outcomes


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Outcomes of every folder's tests at the base and after `git apply fix.patch`."""
    out = {}
    for phase in ("base", "fixed"):
        dest = tmp_path_factory.mktemp(phase)
        roots = [_lay_out(folder, dest) for folder in FOLDERS]
        if phase == "fixed":
            for root in roots:
                proc = git("apply", "fix.patch", cwd=root)
                assert proc.returncode == 0, f"{root.name}: git apply fix.patch: {proc.stderr}"
        out[phase] = (_pytest_outcomes(dest, roots), roots)
    return out


def test_there_are_28_bug_folders():
    assert len(FOLDERS) == 28
    assert [b.package for b in load_bugs()] == [load_bug(f).package for f in sorted(FOLDERS, key=_index)]


def _index(folder: Path) -> int:
    return load_bug(folder).index


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_hidden_tests_fail_at_base_and_everything_passes_with_the_fix(folder, runs):
    bug = load_bug(folder)
    visible = [
        i for p in (folder / "tests").glob("test_*.py") for i in node_ids(f"tests/{p.name}", p.read_text())
    ]
    hidden_ids = node_ids(f"tests/{bug.hidden_file}", bug.hidden)
    f2p = [i for i in hidden_ids if i not in visible]
    assert f2p and visible

    base, _ = runs["base"]
    fixed, roots = runs["fixed"]
    for node in visible:
        assert base.get(f"task_{folder.name}/{node}") == "PASSED", (
            node,
            base.get(f"task_{folder.name}/{node}"),
        )
    for node in f2p:
        assert base.get(f"task_{folder.name}/{node}") == "FAILED", (node, "passes without the fix")
    for node in [*visible, *f2p]:
        assert fixed.get(f"task_{folder.name}/{node}") == "PASSED", (
            node,
            fixed.get(f"task_{folder.name}/{node}"),
        )
    assert len([k for k in fixed if k.startswith(f"task_{folder.name}/")]) == len({*visible, *f2p})

    # The suite's own reading of fix.patch gives the bytes `git apply` wrote.
    root = next(r for r in roots if r.name == f"task_{folder.name}")
    assert (root / bug.package / bug.module).read_text() == bug.fixed_code
    if bug.cli is not None:
        assert (root / bug.package / "cli.py").read_text() == bug.fixed_cli


def test_the_suite_grades_the_same_tests(codegym_cache):
    tasks = {t.instance_id: t for t in load_tasks("repofix", strict=True)}
    for bug in load_bugs():
        task = tasks[f"repofix-{bug.package}"]
        hidden = node_ids(f"tests/{bug.hidden_file}", bug.hidden)
        visible = node_ids(f"tests/test_{bug.stem}.py", bug.tests)
        assert set(task.FAIL_TO_PASS) == set(hidden) - set(visible), bug.package
        assert set(visible) <= set(task.PASS_TO_PASS)
        assert task.problem_statement == bug.statement.strip() + "\n"
        assert task.metadata["bug_kind"] == bug.kind


def _copy(tmp_path: Path, name: str = "pagekit") -> Path:
    dest = tmp_path / name
    shutil.copytree(BUGS_DIR / name, dest)
    return dest


def test_a_broken_folder_names_what_is_wrong(tmp_path):
    folder = _copy(tmp_path)
    (folder / "fix.patch").write_text(
        (folder / "fix.patch").read_text().replace("-    return total", "-    return tot")
    )
    with pytest.raises(ValueError, match=r"does not apply to pagekit/pagination.py at line"):
        load_bug(folder)

    folder = _copy(tmp_path / "b")
    (folder / "notes.txt").write_text("stray\n")
    with pytest.raises(ValueError, match=r"unexpected files \['notes.txt'\]"):
        load_bug(folder)

    folder = _copy(tmp_path / "c")
    toml = folder / "task.toml"
    toml.write_text(toml.read_text().replace('layout = "flat"', 'layout = "nested"'))
    with pytest.raises(ValueError, match="layout must be 'flat' or 'src'"):
        load_bug(folder)

    folder = _copy(tmp_path / "d")
    (folder / "statement.md").unlink()
    with pytest.raises(ValueError, match=r"pagekit: missing \['statement.md'\]$"):
        load_bug(folder)


def test_apply_patch_matches_git_apply(tmp_path):
    old = "a\nb\nc\nd\ne\nf\ng\nh\n"
    new = "a\nB\nc\nd\ne\nf\ng\nh\nI\n"
    (tmp_path / "m.py").write_text(old)
    patch = file_diff("m.py", old, new)
    assert apply_patch({"m.py": old}, patch) == {"m.py": new}
    (tmp_path / "p.diff").write_text(patch)
    assert git("apply", "p.diff", cwd=tmp_path).returncode == 0
    assert (tmp_path / "m.py").read_text() == new
    with pytest.raises(ValueError, match="not a file of the bug"):
        apply_patch({"other.py": old}, patch)


def test_editing_a_folder_changes_the_suite_fingerprint(tmp_path):
    shutil.copytree(BUGS_DIR, tmp_path / "bugs", ignore=shutil.ignore_patterns("__pycache__"))
    before = data_fingerprint(tmp_path / "bugs")
    assert before == data_fingerprint(BUGS_DIR)
    statement = tmp_path / "bugs" / "pagekit" / "statement.md"
    statement.write_text(statement.read_text() + "More detail.\n")
    assert data_fingerprint(tmp_path / "bugs") != before


def test_every_file_of_the_bug_folders_is_package_data():
    """An installed codegym has the folders: pyproject's package-data globs cover every file."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "codegym"
    ]
    shipped = {p for pattern in patterns for p in (root / "codegym").glob(pattern) if p.is_file()}
    files = {p for p in BUGS_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert len(files) > 28 * 5 and files <= shipped, sorted(map(str, files - shipped))[:5]
