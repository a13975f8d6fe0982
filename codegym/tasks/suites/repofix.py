"""The `repofix` suite: small multi-file Python packages with one bug each, and real history.

Every task is a package assembled from a `Bug` (the module with the bug, its visible tests,
the hidden regression tests, the upstream fix and an issue-style problem statement: one folder
of real files each under `repofix/`, read by `repofix_files.py`) and a few ordinary modules
with their own tests (`repofix_parts.py`), in one of several shapes: flat or `src/` layout,
nested subpackages, a command-line entry point. The history reads like a real project's:

    Initial commit -> Add <helpers> -> Add <the buggy feature> -> [Add CLI] -> Release X.Y.0   (base)
    -> Fix <symptom> (tagged vX.Y.1: the upstream fix) -> [Start X.Y.2 development]

The bug is there from the commit that added the feature, so the history up to the base
never shows the correct code: only the unreachable upstream commits do.
"""

from __future__ import annotations

from codegym.tasks.gitrepo import Commit
from codegym.tasks.suites._common import GITIGNORE, TaskSpec, dedent
from codegym.tasks.suites.repofix_files import BUGS_DIR, Bug, data_fingerprint, load_bugs
from codegym.tasks.suites.repofix_parts import PARTS

BUGS: list[Bug] = load_bugs(BUGS_DIR)

#: hashed into the suite's fingerprint, so editing a bug folder makes a new suite.
DATA_VERSION = data_fingerprint(BUGS_DIR)

CONTRIBUTORS = [("Casey Maintainer", "casey@example.org"), ("Robin Contributor", "robin@example.net")]


def _bump(version: str, patch: int) -> str:
    major, minor, _ = version.split(".")
    return f"{major}.{minor}.{patch}"


def _pyproject(bug: Bug, version: str) -> str:
    lines = [
        "[build-system]",
        'requires = ["setuptools>=61"]',
        'build-backend = "setuptools.build_meta"',
        "",
        "[project]",
        f'name = "{bug.package}"',
        f'version = "{version}"',
        f'description = "{bug.summary}"',
        'requires-python = ">=3.9"',
    ]
    if bug.cli:
        lines += ["", "[project.scripts]", f'{bug.package} = "{bug.package}.cli:main"']
    lines += ["", "[tool.pytest.ini_options]", 'testpaths = ["tests"]']
    if bug.layout == "src":
        lines += ['pythonpath = ["src"]']
    return "\n".join(lines) + "\n"


_SRC_CONFTEST = dedent('''
    """Puts src/ on sys.path so the tests import the package without installing it."""

    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
''')
_FLAT_CONFTEST = '"""Makes the package importable from the tests, however pytest is run."""\n'


def _init(bug: Bug, version: str) -> str:
    return f'"""{bug.package}: {bug.summary}"""\n\n__version__ = "{version}"\n'


def _readme(bug: Bug) -> str:
    text = f"# {bug.package}\n\n{bug.summary}\n\n## Usage\n\n```python\n{bug.usage.strip()}\n```\n"
    if bug.cli:
        text += f"\nFrom the shell: `python -m {bug.package} --help`.\n"
    text += "\n## Development\n\n```\npython -m pytest\n```\n"
    return text


def _changelog(entries: list[tuple[str, str]]) -> str:
    body = "".join(f"\n## {version}\n\n- {note}\n" for version, note in reversed(entries))
    return "# Changelog\n" + body


def _main_module(bug: Bug) -> str:
    return f"from {bug.package}.cli import main\n\nraise SystemExit(main())\n"


def spec_for(index: int, bug: Bug) -> TaskSpec:
    """The task for one bug; `index` picks its helper modules and history details."""
    parts = [PARTS[(index + k) % len(PARTS)] for k in ((0, 3) if index % 3 else (0,))]
    pkg_dir = f"src/{bug.package}" if bug.layout == "src" else bug.package
    mod_path = f"{pkg_dir}/{bug.module}"
    test_path = f"tests/test_{bug.stem}.py"
    version, fixed_version = bug.version, _bump(bug.version, 1)
    use_conftest = bug.layout == "flat" or index % 2 == 0
    conftest = _SRC_CONFTEST if bug.layout == "src" else _FLAT_CONFTEST

    first = parts[0]
    initial = {
        ".gitignore": GITIGNORE,
        "README.md": _readme(bug),
        "pyproject.toml": _pyproject(bug, "0.1.0"),
        f"{pkg_dir}/__init__.py": _init(bug, "0.1.0"),
        f"{pkg_dir}/{first.module}": first.code(bug.package),
        f"tests/test_{first.stem}.py": first.tests(bug.package),
    }
    if use_conftest:
        initial["conftest.py"] = conftest
    history = [Commit("Initial commit", initial)]
    feature_files = {mod_path: bug.code, test_path: bug.tests}
    for sub in bug.subpackages():
        feature_files[f"{pkg_dir}/{sub}/__init__.py"] = ""
    for part in parts[1:]:
        history.append(
            Commit(
                part.feature,
                {
                    f"{pkg_dir}/{part.module}": part.code(bug.package),
                    f"tests/test_{part.stem}.py": part.tests(bug.package),
                },
            )
        )
    history.append(Commit(bug.feature, feature_files, author=CONTRIBUTORS[index % 2]))
    if len(parts) == 1:
        notes = "\n## Status\n\nThe API may still change before 1.0; see the docstrings for details.\n"
        history.append(Commit("Document project status", {"README.md": _readme(bug) + notes}))
    if bug.cli:
        history.append(
            Commit(
                "Add command-line interface",
                {
                    f"{pkg_dir}/cli.py": bug.cli,
                    f"{pkg_dir}/__main__.py": _main_module(bug),
                    "tests/test_cli.py": bug.cli_tests or "\n",
                    "pyproject.toml": _pyproject(bug, "0.1.0"),
                },
            )
        )
    changes = [(version, f"First release: {bug.summary[0].lower()}{bug.summary[1:]}")]
    history.append(
        Commit(
            f"Release {version}",
            {
                "pyproject.toml": _pyproject(bug, version),
                f"{pkg_dir}/__init__.py": _init(bug, version),
                "CHANGELOG.md": _changelog(changes),
            },
            tag=f"v{version}",
        )
    )

    # The upstream fix: source change, regression tests, changelog.
    fixed_files = {mod_path: bug.fixed_code}
    source_paths = [mod_path]
    if bug.cli is not None and bug.fixed_cli != bug.cli:
        fixed_files[f"{pkg_dir}/cli.py"] = bug.fixed_cli
        source_paths.append(f"{pkg_dir}/cli.py")
    hidden_path = f"tests/{bug.hidden_file}"
    fixed_files[hidden_path] = bug.hidden
    fixed_files["CHANGELOG.md"] = _changelog([*changes, (fixed_version, bug.fix_message)])
    fix = Commit(bug.fix_message, fixed_files, tag=f"v{fixed_version}", author=CONTRIBUTORS[(index + 1) % 2])
    later = []
    if index % 2:
        dev = _bump(version, 2) + ".dev0"
        later.append(
            Commit(f"Start {_bump(version, 2)} development", {"pyproject.toml": _pyproject(bug, dev)})
        )
    return TaskSpec(
        instance_id=f"repofix-{bug.package}",
        history=history,
        fix=fix,
        later=later,
        problem_statement=bug.statement,
        source_paths=source_paths,
        test_paths=[hidden_path],
        metadata={
            "bug_kind": bug.kind,
            "layout": bug.layout,
            "package": bug.package,
            "cli": bool(bug.cli),
            "hidden_tests": "new file" if bug.hidden_in_new_file else "appended",
            "version": version,
            "fixed_version": fixed_version,
        },
    )


def specs() -> list[TaskSpec]:
    return [spec_for(bug.index, bug) for bug in BUGS]
