"""A mined task's repository: one orphan commit, the mutated tree, and nothing else.

The base commit has no parent, the repository has no other commit, tag or branch, so the
pristine release (the answer) is in no history the agent can reach. Author and date are
fixed, so the same tree gives the same sha on every machine.

    sha = write_orphan_repo(Path("repos/t.git"), {"pkg/a.py": b"x = 1\\n"}, message="toolz 0.12.1")
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from codegym.tasks.gitrepo import EPOCH, run_git

AUTHOR = "codegym <codegym@codegym.invalid>"


def write_orphan_repo(
    path: Path, files: Mapping[str, bytes], *, message: str, executable: Iterable[str] = ()
) -> str:
    """Create the bare repository `path` holding one parentless commit of `files` on `main`;
    returns its sha."""
    executable = set(executable)
    run_git("init", "--bare", "-q", "--initial-branch", "main", str(path))
    when = f"{EPOCH} +0000"
    raw = message.rstrip("\n").encode() + b"\n"
    stream = bytearray(b"commit refs/heads/main\nmark :1\n")
    stream += f"author {AUTHOR} {when}\ncommitter {AUTHOR} {when}\n".encode()
    stream += b"data %d\n" % len(raw) + raw + b"\n"
    for name in sorted(files):
        data = files[name]
        mode = "100755" if name in executable else "100644"
        stream += f"M {mode} inline {name}\n".encode() + b"data %d\n" % len(data) + data + b"\n"
    with tempfile.TemporaryDirectory() as tmp:
        marks = Path(tmp) / "marks"
        run_git("fast-import", "--quiet", f"--export-marks={marks}", cwd=path, input=bytes(stream))
        return marks.read_text().split()[1]
