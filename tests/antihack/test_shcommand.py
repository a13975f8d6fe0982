"""What the shell walker produces: command names, the episode memory, options vs operands."""

from codegym.antihack.shcommand import SEARCH, Memory, SimpleCommand, split_opts, split_opts_values


def test_command_name_is_the_basename_of_argv0():
    assert SimpleCommand(["/usr/bin/git", "log"], "/w", "git log").name == "git"
    assert SimpleCommand([], "/w", "").name == ""


def test_memory_copy_is_independent():
    mem = Memory(files={"/w/a.sh": "ls"}, links={"/w/l": "/grader"}, aliases={"ll": "ls -l"})
    copy = mem.copy()
    copy.files["/w/b.sh"] = "x"
    copy.links.clear()
    assert mem.files == {"/w/a.sh": "ls"} and mem.links == {"/w/l": "/grader"} and copy.aliases == mem.aliases


def test_split_opts_keeps_searches_and_the_double_dash():
    assert split_opts(["-rn", "foo", "--", "-x", SEARCH + "/w/**/t"]) == (
        ["-rn"],
        ["foo", "-x", SEARCH + "/w/**/t"],
    )
    assert split_opts(["-", "-v"]) == (["-v"], ["-"])
    assert split_opts_values(["--depth", "1", "https://x.org/r", "-q"], {"--depth"}) == (
        ["--depth", "-q"],
        ["https://x.org/r"],
    )
