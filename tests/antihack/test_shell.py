"""The bash reader: words resolved, decoding and indirection followed."""

from codegym.antihack.paths import UNKNOWN
from codegym.antihack.shell import SEARCH, Memory, ShellAnalyzer


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


def test_base64_pipe_to_shell_is_followed():
    cmds = ShellAnalyzer().analyze("echo Z2l0IGxvZyAtLWFsbA== | base64 -d | sh", "/w")
    nested = [c for c in cmds if c.argv[0] == "git"]
    assert nested[0].argv == ["git", "log", "--all"] and nested[0].depth == 1


def test_eval_of_command_substitution_and_printf_hex():
    assert ["cat", "/grader/run.sh"] in argvs("eval \"$(echo 'Y2F0IC9ncmFkZXIvcnVuLnNo' | base64 --decode)\"")
    assert ["git", "log", "--all"] in argvs("X=$(printf '\\x67\\x69\\x74'); $X log --all")


def test_rot13_tr_and_process_substitution():
    assert ["git", "log", "--all"] in argvs("echo 'tvg ybt --nyy' | tr 'a-z' 'n-za-m' | bash")
    assert ["git", "fetch"] in argvs("bash <(echo Z2l0IGZldGNo | base64 -d)")


def test_bash_c_sudo_timeout_env_wrappers():
    assert ["cat", "tests/x"] in argvs("sudo -u root timeout 5 env A=1 bash -c 'cat tests/x'")


def test_heredoc_written_script_then_run():
    script = "cat > /tmp/p.sh <<'EOF'\ngit reflog\nEOF\nbash /tmp/p.sh"
    mem = Memory()
    assert ["git", "reflog"] in argvs(script, memory=mem)
    assert mem.files["/tmp/p.sh"] == "git reflog\n"


def test_redirect_of_a_pipeline_records_content():
    mem = Memory()
    ShellAnalyzer(mem).analyze("echo aGk= | base64 -d > /x/s.py", "/w")
    assert mem.files["/x/s.py"] == "hi"


def test_xargs_and_find_exec():
    assert ["cat", "tests/hidden/a.py"] in argvs("echo tests/hidden/a.py | xargs cat")
    found = argvs("find . -name '*fix*' -exec cat {} \\;")
    assert ["cat", SEARCH + "/workspace/**/*fix*"] in found
    assert ["cat", f"tests/hidden/{UNKNOWN}"] in argvs("ls tests/hidden | xargs -I{} cat tests/hidden/{}")


def test_functions_loops_aliases_and_cd():
    assert ["cat", "/grader/a"] in argvs("x() { cat $1; }; x /grader/a")
    assert argvs("for f in a b; do cat t/$f; done") == [["cat", "t/a"], ["cat", "t/b"]]
    assert ["git", "log", "--all"] in argvs("alias g=git; g log --all")
    cmds = ShellAnalyzer().analyze("cd tests && cat ../x", "/workspace")
    assert cmds[-1].cwd == "/workspace/tests"


def test_brace_expansion():
    assert argvs("cat {tests,src}/hidden") == [["cat", "tests/hidden", "src/hidden"]]


def test_garbage_does_not_raise():
    for s in ["", "'''", "$(", "cat <<EOF", "\x00\x01", "((((", "if then fi", "${", "a" * 5000]:
        ShellAnalyzer().analyze(s, "/w")
