"""The bash walker: words resolved (quotes, escapes, variables, expansions), lists, loops, functions."""

from codegym.antihack.shcommand import Memory
from codegym.antihack.shwalk import ShellAnalyzer


def argvs(script: str, cwd: str = "/workspace", memory: Memory | None = None) -> list[list[str]]:
    return [c.argv for c in ShellAnalyzer(memory).analyze(script, cwd)]


def test_pipeline_and_lists():
    assert argvs("cd /workspace && git log --all | head -5; echo done") == [
        ["cd", "/workspace"],
        ["git", "log", "--all"],
        ["head", "-5"],
        ["echo", "done"],
    ]


def test_quoting_and_escapes_resolve_to_words():
    assert argvs("c\\at x; \"g\"'i't log; $'\\x67\\x69\\x74' show") == [
        ["cat", "x"],
        ["git", "log"],
        ["git", "show"],
    ]


def test_variables_expansions_and_defaults():
    cmds = argvs('D=tests; F=hidden; cat "${D}/${F}/t.py" ${UNSET:-fallback}')
    assert cmds[-1] == ["cat", "tests/hidden/t.py", "fallback"]


def test_unquoted_variable_splits_into_command_and_args():
    assert ["git", "log", "--all"] in argvs('CMD="git log --all"; $CMD')


def test_redirect_of_a_pipeline_records_content():
    mem = Memory()
    ShellAnalyzer(mem).analyze("echo aGk= | base64 -d > /x/s.py", "/w")
    assert mem.files["/x/s.py"] == "hi"


def test_functions_loops_aliases_and_cd():
    assert ["cat", "/grader/a"] in argvs("x() { cat $1; }; x /grader/a")
    assert argvs("for f in a b; do cat t/$f; done") == [["cat", "t/a"], ["cat", "t/b"]]
    assert ["git", "log", "--all"] in argvs("alias g=git; g log --all")
    cmds = ShellAnalyzer().analyze("cd tests && cat ../x", "/workspace")
    assert cmds[-1].cwd == "/workspace/tests"


def test_brace_expansion():
    assert argvs("cat {tests,src}/hidden") == [["cat", "tests/hidden", "src/hidden"]]


def test_a_redirect_after_cd_in_a_list_lands_in_the_new_folder():
    # tree-sitter hangs the redirect on the whole list; bash gives it to the last command
    m = Memory()
    ShellAnalyzer(m).analyze("cd /workspace/out && printf 'x' > a.txt", "/workspace")
    ShellAnalyzer(m).analyze("cd /workspace/gen && cat > b.c <<'E'\nint x;\nE\n", "/workspace")
    assert "/workspace/out/a.txt" in m.files and "/workspace/gen/b.c" in m.files


def test_an_export_is_emitted_for_the_rules_and_a_plain_assignment_is_not():
    assert argvs("export A_OPTS=-x B=2") == [["export", "A_OPTS=-x", "B=2"]]
    assert argvs("declare -x C=3") == [["declare", "C=3"]]
    assert argvs("D=4; readonly E=5") == []


def test_an_export_written_into_any_startup_file_is_inherited_by_the_next_call():
    """One startup-file list (`paths.PROFILE_FILES`) for the write rules and the walker's memory:
    ~/.zshenv and /etc/profile.d/* count like ~/.bashrc; a plain file with an export line does not."""
    from codegym.antihack.paths import HOME

    for path in (f"{HOME}/.zshenv", f"{HOME}/.bash_login", "/etc/profile.d/ci.sh", f"{HOME}/.bashrc"):
        memory = Memory()
        memory.files[path] = "export PYTEST_ADDOPTS='-p no:cacheprovider'\n"
        ShellAnalyzer(memory).analyze("pytest -q", "/workspace")
        assert memory.inherited.get("PYTEST_ADDOPTS") == "-p no:cacheprovider", path
    memory = Memory()
    memory.files["/workspace/notes/setup.sh"] = "export PYTEST_ADDOPTS=-x\n"
    ShellAnalyzer(memory).analyze("pytest -q", "/workspace")
    assert "PYTEST_ADDOPTS" not in memory.inherited


def test_quoted_all_arguments_are_one_word_each():
    memory = Memory()
    memory.files["/workspace/log.sh"] = '#!/bin/sh\ngit log --oneline "$@"\n'
    assert argvs("sh log.sh --all -- a.go", memory=memory)[-1] == [
        "git",
        "log",
        "--oneline",
        "--all",
        "--",
        "a.go",
    ]
    assert argvs('f() { echo "$@"; }; f a "b c"')[-1] == ["echo", "a", "b c"]
