"""GuardContext: JSON nulls mean "unknown", never an AttributeError."""

from __future__ import annotations

import json

from codegym.antihack import GuardContext, detect
from codegym.toolcall import ToolCall


def test_json_nulls_in_a_context_mean_unknown():
    ctx = GuardContext(
        package=None,
        repo_root=None,
        base_commit=None,
        cwd=None,
        protected_paths=None,
        upstream_refs=None,
        decoys_present=None,
    )
    assert (ctx.package, ctx.repo_root, ctx.base_commit, ctx.workdir) == ("", "/workspace", "", "/workspace")
    assert ctx.protected_paths == () and ctx.decoys_present is False
    for cmd in ("pip install requests==2.0", "git show abc1234", "cat tests/hidden/x.py", "git log --all"):
        detect(ToolCall("bash", {"command": cmd}), ctx)  # does not raise
    d = json.loads(json.dumps({k: None for k in GuardContext().to_dict()}))
    assert GuardContext.from_dict(d) == GuardContext()
