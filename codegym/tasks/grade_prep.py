"""Lay the tree that grading tests: the agent's changes, a pristine test tree, fresh test names.

Shipped into the grading sandbox as source and run there by the grader's own executor (never
by graded code), before any of the agent's code runs: `python3 -I grade_prep.py PLAN.json`.
Standard library only (it must not import codegym). Prints one JSON object:

    {"status": {"agent_patch": "applied", "test_patch": "applied"},
     "files": ["tests/test_3f9a1c07.py"], "ids": {"tests/test_3f9a1c07.py::test_8be2...": "tests/test_calc.py::test_add"},
     "expected": {"tests/test_3f9a1c07.py": {"test_8be2...": 12}}, "renamed": {"files": 1, "functions": 2, ...}}

Steps, in the sandbox's workdir:

1. apply the agent's diff against `base` (`git apply`, then `patch` as a fallback);
2. start-up and configuration files come from `base` only: pytest/tox/setup configuration,
   `conftest.py`, `sitecustomize`/`usercustomize`, `*.pth`, `*.dist-info`, `*.egg-info`: the
   base's copy where it has one, removed where the agent added it;
3. a pristine test tree: every test directory (a directory named like `tests`) is replaced
   by the base's, every other graded or visible test file reset, agent-added test files
   beside them removed; then the task's `test_patch` (the hidden tests) is applied;
4. no bytecode;
5. fresh names: each graded test file gets a random name and each graded test function a
   random name, where nothing else refers to them (a module imported by another file keeps
   its name; a function named more than once in its file keeps its name). `expected` maps
   each graded function's new name to the line its code starts on, for the runner's
   identity check.
"""

import ast
import json
import os
import re
import secrets
import shutil
import subprocess
import sys

GIT = ["git", "-c", "safe.directory=*", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
       "-c", "core.quotepath=off"]
CONFIG_NAMES = ("conftest.py", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml",
                "sitecustomize.py", "usercustomize.py", "noxfile.py")
STARTUP_SUFFIXES = (".pth", ".dist-info", ".egg-info", ".egg-link")
TEST_DIR_RE = re.compile(r"^(tests?|testing|test_.*|.*_tests?)$")
TEST_FILE_RE = re.compile(r"^(test_.*|.*_test)\.py$")


def git(*args, check=True, **kw):
    return subprocess.run(GIT + list(args), check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def worktree_files():
    """Every path (files and directories) under the workdir but .git, relative."""
    out = []
    for root, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if not (root == "." and d == ".git")]
        for name in dirs + files:
            out.append(os.path.normpath(os.path.join(root, name)))
    return out


def base_listing(base):
    """(files, directories) of the `base` commit's tree, repository-relative."""
    listing = git("ls-tree", "-r", "-t", "-z", base).stdout.decode("utf-8", "surrogateescape")
    files, dirs = set(), set()
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        (dirs if meta.split()[1] == "tree" else files).add(path)
    return files, dirs


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.unlink(path)


def restore_from_base(paths, base, base_paths):
    """Each of `paths` as `base` has it, or gone when `base` has no such path (one checkout)."""
    for path in paths:
        remove(path)
    kept = [path for path in paths if path in base_paths]
    if kept:
        git("checkout", "-q", base, "--", *kept)


def apply_agent_patch(patch_path):
    if not os.path.exists(patch_path) or os.path.getsize(patch_path) == 0:
        return "empty"
    if git("apply", "--binary", "--whitespace=nowarn", "--", patch_path, check=False).returncode == 0:
        return "applied"
    if shutil.which("patch"):
        dry = subprocess.run(["patch", "--batch", "--forward", "-p1", "--dry-run", "-i", patch_path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if dry.returncode == 0:
            subprocess.run(["patch", "--batch", "--forward", "-p1", "-i", patch_path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            return "fuzzy"
    return "failed"


def is_startup_or_config(path):
    name = os.path.basename(path)
    return name in CONFIG_NAMES or name.endswith(STARTUP_SUFFIXES)


def pristine_tree(plan, base_paths, base_dirs):
    base = plan["base"]
    # 2. start-up and configuration files: the base's, never the agent's
    restore_from_base(sorted(p for p in base_paths if is_startup_or_config(p)), base, base_paths)
    for path in worktree_files():
        if is_startup_or_config(path) and path not in base_paths and path not in base_dirs:
            remove(path)
    # 3. test directories wholesale, other test files one by one
    test_files = [os.path.normpath(p) for p in plan["reset_paths"]]
    test_dirs = set()
    for path in test_files:
        parts = path.split("/")[:-1]
        for i, part in enumerate(parts):
            if TEST_DIR_RE.match(part):
                test_dirs.add("/".join(parts[: i + 1]))
                break
    for d in sorted(test_dirs):
        remove(d)
    kept_dirs = [d for d in sorted(test_dirs) if d in base_dirs]
    if kept_dirs:
        git("checkout", "-q", base, "--", *kept_dirs)
    loose = [path for path in test_files if not any(path.startswith(d + "/") for d in test_dirs)]
    restore_from_base(loose, base, base_paths)
    loose_dirs = {os.path.dirname(path) or "." for path in loose}
    for d in loose_dirs:  # agent-added test modules beside loose test files
        for name in os.listdir(d) if os.path.isdir(d) else ():
            path = os.path.normpath(os.path.join(d, name))
            if TEST_FILE_RE.match(name) and path not in base_paths:
                remove(path)


def apply_test_patch(patch_path):
    if not os.path.exists(patch_path) or os.path.getsize(patch_path) == 0:
        return "empty"
    r = git("apply", "--binary", "--whitespace=nowarn", "--", patch_path, check=False)
    return "applied" if r.returncode == 0 else "failed: " + r.stderr.decode(errors="replace").strip()[-300:]


def drop_bytecode():
    for root, dirs, files in os.walk("."):
        for d in list(dirs):
            if d == "__pycache__":
                shutil.rmtree(os.path.join(root, d), ignore_errors=True)
                dirs.remove(d)
        for f in files:
            if f.endswith((".pyc", ".pyo")):
                os.unlink(os.path.join(root, f))


# ---- fresh names -----------------------------------------------------------------------


def _split(node_id):
    path, bracket, params = node_id.partition("[")
    parts = path.split("::")
    return parts[0], parts[1:], bracket + params


def _python_sources():
    for root, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if d != ".git"]
        for f in files:
            if f.endswith(".py"):
                yield os.path.normpath(os.path.join(root, f))


def _referenced_elsewhere(paths):
    """Which of the graded files `paths` some other Python file names by its module name (then it
    keeps its name: renaming would break that import). Reads each source file once."""
    by_stem = {}
    for path in paths:
        by_stem.setdefault(os.path.basename(path)[:-3], set()).add(path)
    if not by_stem:
        return set()
    word = re.compile(r"\b(%s)\b" % "|".join(re.escape(stem) for stem in by_stem))
    referenced = set()
    for other in _python_sources():
        try:
            with open(other, encoding="utf-8", errors="replace") as f:
                found = set(word.findall(f.read()))
        except OSError:
            continue
        for stem in found:
            referenced.update(p for p in by_stem[stem] if p != other)
    return referenced


def _custom_collection_config():
    """True when the base configures which functions pytest collects (then names stay)."""
    for name in ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"):
        try:
            with open(name, encoding="utf-8", errors="replace") as f:
                if "python_functions" in f.read():
                    return True
        except OSError:
            continue
    return False


def _def_lines(source):
    """qualname -> the line a function's code object starts on (its first decorator)."""
    out = {}

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = [d.lineno for d in child.decorator_list] + [child.lineno]
                out[prefix + child.name] = min(lines)
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")

    walk(ast.parse(source), "")
    return out


def fresh_names(node_ids, enabled):
    """Rename graded files and functions in place; returns (ids map, files, expected, counts)."""
    by_file = {}
    for nid in node_ids:
        by_file.setdefault(_split(nid)[0], []).append(nid)
    renamable = [p for p in by_file if enabled and os.path.isfile(p) and TEST_FILE_RE.match(os.path.basename(p))]
    keep_name = _referenced_elsewhere(renamable)
    rename_functions = enabled and not _custom_collection_config()
    ids, files, expected = {}, [], {}
    counts = {"files": 0, "files_kept": 0, "functions": 0, "functions_kept": 0}
    for path, nids in by_file.items():
        if not os.path.isfile(path):
            for nid in nids:
                ids[nid] = nid
            continue
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            source = f.read()
        new_names = {}
        if rename_functions:
            for nid in nids:
                func = _split(nid)[1][-1] if _split(nid)[1] else None
                if not func or func in new_names or not func.startswith("test"):
                    continue
                if len(re.findall(r"\b%s\b" % re.escape(func), source)) == 1:
                    new_names[func] = "test_" + secrets.token_hex(6)
        for old, new in new_names.items():
            source = re.sub(r"\b%s\b" % re.escape(old), new, source)
        counts["functions"] += len(new_names)
        counts["functions_kept"] += len({(_split(n)[1] or [""])[-1] for n in nids} - set(new_names))
        new_path = path
        if path in renamable and path not in keep_name:
            new_path = os.path.join(os.path.dirname(path), "test_%s.py" % secrets.token_hex(6))
            new_path = os.path.normpath(new_path)
            os.unlink(path)
            counts["files"] += 1
        else:
            counts["files_kept"] += 1
        with open(new_path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(source)
        try:
            expected[new_path] = _def_lines(source)
        except SyntaxError:
            expected[new_path] = {}
        files.append(new_path)
        for nid in nids:
            _, parts, params = _split(nid)
            parts = [new_names.get(p, p) for p in parts]
            ids["::".join([new_path] + parts) + params] = nid
    return ids, files, expected, counts


def project_modules(base_paths):
    """Top-level module names the repository defines at `base` (at its root or under `src/`):
    the graded run makes sure these resolve to the repository, never to an installed copy."""
    names = set()
    for path in base_paths:
        parts = path.split("/")
        if parts[0] == "src" and len(parts) > 1:
            parts = parts[1:]
        if len(parts) == 1 and parts[0].endswith(".py") and not TEST_FILE_RE.match(parts[0]):
            names.add(parts[0][:-3])
        elif len(parts) == 2 and parts[1] == "__init__.py" and not TEST_DIR_RE.match(parts[0]):
            names.add(parts[0])
    return sorted(n for n in names if n.isidentifier() and n not in ("setup", "conftest", "noxfile"))


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    os.chdir(plan["workdir"])
    status = {"agent_patch": apply_agent_patch(plan["agent_patch"])}
    if status["agent_patch"] == "failed":
        print(json.dumps({"status": status}))
        return 3
    base_paths, base_dirs = base_listing(plan["base"])
    pristine_tree(plan, base_paths, base_dirs)
    status["test_patch"] = apply_test_patch(plan["test_patch"])
    if status["test_patch"] != "empty" and status["test_patch"] != "applied":
        print(json.dumps({"status": status}))
        return 4
    drop_bytecode()
    ids, files, expected, counts = fresh_names(plan["node_ids"], plan.get("rename", True))
    print(json.dumps({"status": status, "ids": ids, "files": files, "expected": expected, "renamed": counts,
                      "modules": project_modules(base_paths)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
