"""`polyglot`: the shared pieces: a path's language (`language`) and whether it names a test file (`foreign_test_file`)."""

from __future__ import annotations

from codegym.antihack.polyglot import foreign_test_file, language
from codegym.antihack.polyglot_tests import edit_to_tests


def kinds(probes):
    return [p.kind for p in probes]


def test_languages_and_test_files_by_name():
    assert [language(p) for p in ("a.ts", "b_test.go", "lib.rs", "Makefile", ".mocharc.yml", "x.py")] == [
        "js",
        "go",
        "rust",
        "make",
        "config",
        "python",
    ]
    assert foreign_test_file("test/fixtures/user.tmpl") and foreign_test_file("pkg/testdata/out.golden")
    assert foreign_test_file("src/__tests__/__snapshots__/a.test.ts.snap") and foreign_test_file(
        "cmd_test.go"
    )
    assert not foreign_test_file("lib/router.js") and not foreign_test_file("tests/test_a.py")
    assert not foreign_test_file("node_modules/x/test/a.js")


# ---------------------------------------------------------------- Ruby / rspec and package-manager settings


def test_ruby_files_are_ruby():
    assert [language(p) for p in ("lib/a.rb", "Rakefile", "Gemfile", "tasks/x.rake")] == ["ruby"] * 4


# ------------------------------------------------ JVM, PHP, C/C++, .NET, Elixir (issue 15 item 2)


def test_languages_and_test_files_of_more_ecosystems() -> None:
    assert [language(p) for p in ("A.java", "b.kt", "c.php", "d.cc", "E.cs", "f_test.exs")] == [
        "java",
        "java",
        "php",
        "c",
        "csharp",
        "elixir",
    ]
    assert all(
        foreign_test_file(p)
        for p in (
            "src/CalcTest.java",
            "lib/FooTests.cs",
            "Acme.Tests/Util.cs",
            "x/test_parse.c",
            "a/calc_test.exs",
        )
    )
    assert not foreign_test_file("src/main/java/Calc.java")
    assert [p.kind for p in edit_to_tests("t/CalcTest.php", "", "$this->markTestSkipped('x');")] == ["skip"]
    assert [
        p.kind
        for p in edit_to_tests("t/a_test.cc", "EXPECT_EQ(1, f());\nEXPECT_EQ(2, g());", "EXPECT_EQ(1, f());")
    ] == ["weakened"]
