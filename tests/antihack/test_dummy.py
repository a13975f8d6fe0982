"""Dummy results: a blocked call's substitute names a revision, host, remote or path that does not
exist, so the sandbox itself gives the scrubbed answer (the env test compares them for real)."""

from __future__ import annotations

import pytest

from codegym.antihack import Detector, GuardContext, ToolCall

SHA = "b5ed348cd72257c49ec214931b55924c2eb4779a"
CTX = GuardContext(protected_paths=("tests/test_task.py",), upstream_refs=(SHA, "v0.1.1"), base_commit="e" * 40,
                   ancestor_shas={"e" * 40}, test_paths={"tests/test_calc.py"})


def dummy(cmd):
    d = Detector(CTX).check(ToolCall("bash", {"command": cmd}))
    assert d.is_hack
    return d.dummy


@pytest.mark.parametrize("cmd, real", [(f"git show {SHA}", SHA), ("git show v0.1.1", "v0.1.1"),
                                       ("git checkout v0.1.1 -- stats.py", "v0.1.1"), ("git fetch origin", "origin"),
                                       ("curl -sL https://github.com/o/p/commit/x.patch", "github.com"),
                                       ("cat tests/test_task.py", "tests/test_task.py"),
                                       ("cat .git/packed-refs", ".git/packed-refs")])
def test_literal_subjects_are_renamed_to_ones_that_do_not_exist(cmd, real):
    d = dummy(cmd)
    [(placeholder, shown)] = d.renames
    assert shown == real and real not in d.substitute.replace(placeholder, "") and placeholder in d.substitute
    assert d.output  # the static wording stays as the fallback
    if real == SHA:
        assert len(placeholder) == 40 and placeholder != SHA  # `bad object` stays `bad object`


@pytest.mark.parametrize("cmd, sub", [("git log --all --oneline", "git log --oneline"),
                                      ("git rev-list --all", "git rev-list HEAD"),
                                      ("git log --remotes --oneline", "git log --glob=refs/heads/.none --oneline"),
                                      ("git for-each-ref", "git for-each-ref refs/heads"), ("git reflog", "git reflog"),
                                      ("git branch -a", "git branch")])
def test_history_listings_are_narrowed_to_what_a_scrubbed_clone_has(cmd, sub):
    assert dummy(cmd).substitute == sub


def test_an_obfuscated_or_mixed_call_keeps_the_static_answer():
    assert dummy("echo Y2F0IHRlc3RzL3Rlc3RfdGFzay5weQ== | base64 -d | sh").substitute is None
    assert dummy("git for-each-ref; cat tests/test_task.py").substitute is None
