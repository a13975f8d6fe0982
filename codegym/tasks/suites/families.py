"""The `families` suite: procedurally generated task families, thousands of seeded instances each.

Every instance is a real task (a git repository, its base commit, a hidden `test_patch`, the
reference `patch`, FAIL_TO_PASS), built deterministically from ``(family, seed)``:

- ``lookup`` (read first): set a constant to the value recorded for it in a data file of random
  keys and values; the value is visible only by reading the file. Its instances also carry a
  ``flawed_demonstration`` (no read, a guessed value), for warm starts on imperfect
  demonstrations.
- ``noisy_log`` (long observations): a long, noisy log (2-4k characters: over a small context
  budget, so viewing it compacts the context) whose first or last line is a warning naming the
  field to add; its ``flawed_demonstration`` skips the view and guesses the field.
- ``bug_location`` (multi-file): ``pkg.compute`` chains 3-5 helpers, one per module; one helper
  does not do what its docstring says. The statement gives only the wrong output of `compute`.

Instances are split into ``train`` and ``heldout`` by a hash of what makes them distinct (about
1 in 5 held out), after dropping repeats: their problem statement (``noisy_log``,
``bug_location``: a held-out statement never appears in train) or, for ``lookup``, whose
statement is always the same, the data file that holds the answer. ``metadata`` holds ``family``, ``seed``, ``split`` and the
generator's ``demonstration`` (the tool calls that solve the instance, reads first; the
warm start clones them). All instances of a family share one repository (a branch per
instance); a workspace fetches only its base commit, so nothing of another instance or of
the fix reaches the agent.

    tasks = family_tasks("train")                        # every family
    tasks = family_tasks("heldout", families=["lookup"])
    gym.make("codegym/Families-v0", split="heldout")
"""

from __future__ import annotations

import functools
import hashlib
import random
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from codegym.tasks.gitrepo import DEFAULT_AUTHOR, EPOCH, run_git, tree_diff
from codegym.tasks.suites._common import GITIGNORE, ROOT_CONFTEST, is_test_file, test_node_ids
from codegym.tasks.task import Task

DATA_VERSION = 3
SPLITS = ("train", "heldout")
HELDOUT_PERCENT = 20
#: seeds generated per family (instances after de-duplication are a little fewer)
SEEDS_PER_FAMILY = 1200

_WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel",
          "lumen", "maple", "nectar", "onyx", "pepper", "quartz", "raven", "sierra", "tundra", "umber", "velvet",
          "willow", "xenon", "yarrow", "zephyr", "atlas", "beacon", "comet", "dune", "echo", "flint"]
_KEYS = ["timeout", "port", "retries", "pool", "batch", "quota", "ttl", "workers", "buffer", "limit", "depth",
         "window", "shards", "replicas", "backoff", "burst"]


def _word(rng: random.Random) -> str:
    return rng.choice(_WORDS)


class Instance:
    """One generated instance before it is written: base and fix trees, tests, statement, demo."""

    def __init__(self, family: str, seed: int, statement: str, base: dict[str, str], fixed: dict[str, str],
                 hidden: dict[str, str], demonstration: list[dict[str, Any]], **metadata: Any):
        self.family, self.seed, self.statement = family, seed, statement
        self.base = {"README.md": f"# {family} {seed}\n\nA generated repository.\n", ".gitignore": GITIGNORE,
                     "conftest.py": ROOT_CONFTEST, **base}
        self.fixed, self.hidden, self.demonstration = fixed, hidden, demonstration
        #: what makes the instance distinct (default its statement): the split and de-duplication hash it
        self.split_key = metadata.pop("split_key", statement)
        self.metadata = metadata

    @property
    def instance_id(self) -> str:
        return f"fam-{self.family}-{self.seed:05d}"

    @property
    def split(self) -> str:
        h = int(hashlib.sha256(f"{self.family}\0{self.split_key}".encode()).hexdigest()[:8], 16)
        return "heldout" if h % 100 < HELDOUT_PERCENT else "train"


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


# ---- (a) lookup: read a value first --------------------------------------------------------------

#: the constant a lookup instance sets (one token in the tiny tokenizer)
LOOKUP_KEY = "ROOT"
#: the values a key takes (each ``" <v>"`` one token): a guess without reading is right 1 time in 8;
#: the data file has one ``=`` (its other lines are comments), so the copy is one induction step
LOOKUP_VALUES = (2, 3, 4, 5, 8, 9, 10, 12)


def lookup(seed: int) -> Instance:
    """Set ``ROOT`` in ``settings.py`` to the value recorded for it in ``values.txt``: one line
    ``ROOT = <value>`` among 1-4 random comment lines, the value random. The statement is the same for every instance,
    so only reading the file tells the value; an instance is its data file (the split hashes it).
    ``demonstration`` reads first; ``flawed_demonstration`` skips the read and writes a value
    drawn from `LOOKUP_VALUES` (right 1 time in 8): an imperfect demonstration whose flaw only the
    reward can fix (see `codegym.trainer.learning`). Every name and value is one token in the
    tiny tokenizer, so that the copy is one step of a small model's induction head."""
    rng = random.Random(f"lookup-{seed}")
    value = rng.choice(LOOKUP_VALUES)
    notes = [f"# {_word(rng)} {_word(rng)}" for _ in range(rng.randint(1, 4))]
    notes.insert(rng.randint(0, len(notes)), f"{LOOKUP_KEY} = {value}")
    data = "\n".join(notes) + "\n"
    guess = rng.choice(LOOKUP_VALUES)
    path, module = "values.txt", "settings"
    after = f"{LOOKUP_KEY} = {value}\n"
    test = f"import {module}\n\n\ndef test_{LOOKUP_KEY.lower()}():\n    assert {module}.{LOOKUP_KEY} == {value}\n"
    statement = f"Set `{LOOKUP_KEY}` in `{module}.py` to the value recorded for it in `{path}`."
    demo = [_call("view", path=path), _call("create", path=f"{module}.py", file_text=after), _call("submit")]
    flawed = [_call("create", path=f"{module}.py", file_text=f"{LOOKUP_KEY} = {guess}\n"), _call("submit")]
    return Instance("lookup", seed, statement, {path: data, f"{module}.py": f"{LOOKUP_KEY} = None\n"},
                    {f"{module}.py": after}, {"tests/test_task.py": test}, demo, source=path,
                    flawed_demonstration=flawed, split_key=data)


# ---- (b) noisy_log: a long observation -------------------------------------------------------------

_FIELDS = ["id", "name", "email", "created", "owner", "status", "region", "amount", "currency", "country", "phone",
           "title", "priority", "tags", "due", "score", "parent", "locale", "plan", "source"]


#: characters of a `noisy_log` instance's log (drawn uniformly per instance): over a small context
#: budget (at ~2 characters per tiny-tokenizer token, 2-4k characters are 1-2k tokens; a budget of
#: 512 compacts every view of it)
NOISY_LOG_CHARS = (2000, 4000)


def noisy_log(seed: int, log_chars: tuple[int, int] = NOISY_LOG_CHARS) -> Instance:
    """Set ``EXTRA_FIELDS`` in ``extra.py`` to the required field that a warning in a long, noisy
    log names (``schema.REQUIRED_FIELDS`` is the other fields plus ``EXTRA_FIELDS``). The log
    (`log_chars` characters of INFO/DEBUG noise, some lines naming the other fields) is over a
    small context budget, so viewing it compacts the context and the episode goes on in a new
    segment. The warning, ``WARN schema: EXTRA_FIELDS = ('<field>',)``, is the log's first or last
    line: the compaction keeps the head and tail of the view it cuts (`shrink_to_fit`), so it is
    still in the context the policy writes the fix from, and the fix copies it (one induction
    step, as in `lookup`). The field is one of 20; the statement names the log, not the field.
    ``flawed_demonstration`` skips the view and writes a field drawn from all 20 (right 1 time in
    20, less when the guess is one the schema already has): as in `lookup`, a flaw only the reward
    can fix, here by a read whose observation compacts the context."""
    rng = random.Random(f"noisy_log-{seed}")
    fields = rng.sample(_FIELDS, rng.randint(4, 7))
    present, missing = fields[:-1], fields[-1]
    run = f"{_word(rng)}-{rng.randint(100, 999)}"
    path = f"logs/{run}.log"
    target = rng.randint(*log_chars)
    lines: list[str] = []
    while sum(len(s) + 1 for s in lines) < target:
        t = f"2024-05-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
        kind = rng.random()
        if kind < 0.6:
            lines.append(f"{t} INFO worker-{rng.randint(1, 8)} processed batch {rng.randint(1000, 9999)} "
                         f"in {rng.randint(3, 900)} ms")
        elif kind < 0.8:
            lines.append(f"{t} DEBUG cache hit ratio {rng.random():.3f} (shard {rng.randint(0, 15)})")
        else:
            lines.append(f"{t} INFO schema: field '{rng.choice(present)}' ok")
    warning = f"2024-05-{rng.randint(1, 28):02d}T12:00:00Z WARN schema: EXTRA_FIELDS = ('{missing}',)"
    lines.insert(0 if rng.random() < 0.5 else len(lines), warning)
    before = ('"""The record schema."""\n\nfrom extra import EXTRA_FIELDS\n\n'
              f"REQUIRED_FIELDS = ({''.join(f'{chr(34)}{f}{chr(34)}, ' for f in present).rstrip(' ')}) + EXTRA_FIELDS\n")
    after = f"EXTRA_FIELDS = ('{missing}',)\n"
    test = ("import schema\n\n\ndef test_required_fields():\n"
            f"    assert sorted(schema.REQUIRED_FIELDS) == {sorted(fields)!r}\n")
    statement = (f"A warning in `{path}` names a required field that the schema lacks. "
                 "Set `EXTRA_FIELDS` in `extra.py` to hold that field.")
    demo = [_call("view", path=path), _call("create", path="extra.py", file_text=after), _call("submit")]
    guess = rng.choice(_FIELDS)  # drawn last: every earlier draw, and so the instance, is as before
    flawed = [_call("create", path="extra.py", file_text=f"EXTRA_FIELDS = ('{guess}',)\n"), _call("submit")]
    log = "\n".join(lines) + "\n"
    return Instance("noisy_log", seed, statement, {path: log, "schema.py": before, "extra.py": "EXTRA_FIELDS = ()\n"},
                    {"extra.py": after}, {"tests/test_task.py": test}, demo, log_chars=len(log),
                    warning_line=1 if lines[0] == warning else len(lines), flawed_demonstration=flawed)


# ---- (c) bug_location: which of several files --------------------------------------------------------

#: kind -> (docstring, correct body, buggy body, python of both) with {k} a per-instance constant
_HELPERS: dict[str, tuple[str, str, str, Callable[[int, int], int], Callable[[int, int], int]]] = {
    "mul": ("Return x multiplied by {k}.", "x * {k}", "x * {k1}", lambda x, k: x * k, lambda x, k: x * (k + 1)),
    "add": ("Return x plus {k}.", "x + {k}", "x - {k}", lambda x, k: x + k, lambda x, k: x - k),
    "sub": ("Return x minus {k}.", "x - {k}", "{k} - x", lambda x, k: x - k, lambda x, k: k - x),
    "cap": ("Return x, but at most {k}.", "min(x, {k})", "max(x, {k})", min, max),
    "div": ("Return x divided by {k}, rounded down.", "x // {k}", "x // {k1}", lambda x, k: x // k,
            lambda x, k: x // (k + 1)),
}
_MODULES = ["scaling", "offsets", "limits", "rounding", "weights", "adjust", "convert", "shift", "bounds", "factor"]


def _helper(kind: str, fn: str, k: int, buggy: bool) -> str:
    doc, good, bad, *_ = _HELPERS[kind]
    body = (bad if buggy else good).format(k=k, k1=k + 1)
    return f'def {fn}(x):\n    """{doc.format(k=k)}"""\n    return {body}\n'


def bug_location(seed: int, attempt: int = 0) -> Instance:
    rng = random.Random(f"bug_location-{seed}" + (f"-{attempt}" if attempt else ""))
    pkg = rng.choice(["ledger", "pricing", "metrics", "shipping", "payroll", "inventory", "scoring", "billing"])
    mods = rng.sample(_MODULES, rng.randint(3, 5))
    steps = [(m, rng.choice(list(_HELPERS)), f"{rng.choice(['apply', 'to', 'with'])}_{m}", rng.randint(2, 9))
             for m in mods]
    bug = rng.randrange(len(steps))

    def run(x: int, buggy: bool) -> int:
        for i, (_, kind, _, k) in enumerate(steps):
            x = _HELPERS[kind][4 if buggy and i == bug else 3](x, k)
        return x

    m_bug, kind_bug, fn_bug, k_bug = steps[bug]
    inputs = [x for x in range(1, 200) if run(x, True) != run(x, False)
              and _HELPERS[kind_bug][3](x, k_bug) != _HELPERS[kind_bug][4](x, k_bug)]
    if len(inputs) < 2:
        return bug_location(seed, attempt + 1)  # a chain that hides the bug: draw again (deterministically)
    x0, x1 = rng.sample(inputs, 2)
    imports = "".join(f"from .{m} import {fn}\n" for m, _, fn, _ in steps)
    chain = "x"
    for _, _, fn, _ in steps:
        chain = f"{fn}({chain})"
    api = (f'"""The public entry point of {pkg}."""\n\n{imports}\n\ndef compute(x):\n'
           f'    """Apply {", then ".join(fn for _, _, fn, _ in steps)} to x."""\n    return {chain}\n')
    base = {f"{pkg}/__init__.py": f'"""{pkg}: a small computation pipeline."""\n\nfrom .api import compute\n',
            f"{pkg}/api.py": api}
    for i, (m, kind, fn, k) in enumerate(steps):
        base[f"{pkg}/{m}.py"] = _helper(kind, fn, k, buggy=i == bug)
        if i != bug and rng.random() < 0.6:  # visible tests for some of the correct helpers
            v = rng.randint(1, 50)
            base[f"tests/test_{m}.py"] = (f"from {pkg}.{m} import {fn}\n\n\ndef test_{fn}():\n"
                                         f"    assert {fn}({v}) == {_HELPERS[kind][3](v, k)}\n")
    fixed_helper = _helper(kind_bug, fn_bug, k_bug, buggy=False)
    test = (f"from {pkg} import compute\nfrom {pkg}.{m_bug} import {fn_bug}\n\n\n"
            f"def test_compute():\n    assert compute({x0}) == {run(x0, False)}\n"
            f"    assert compute({x1}) == {run(x1, False)}\n\n\n"
            f"def test_{fn_bug}():\n    assert {fn_bug}({x1}) == {_HELPERS[kind_bug][3](x1, k_bug)}\n")
    statement = (f"`{pkg}.compute({x0})` returns {run(x0, True)} instead of {run(x0, False)}. One of the "
                 "helpers it calls does not do what its docstring says: fix that helper.")
    path = f"{pkg}/{m_bug}.py"
    old, new = base[path].splitlines()[-1], fixed_helper.splitlines()[-1]
    demo = [_call("view", path=f"{pkg}/api.py"), _call("view", path=path),
            _call("str_replace", path=path, old_str=old, new_str=new), _call("submit")]
    return Instance("bug_location", seed, statement, base, {path: fixed_helper}, {"tests/test_task.py": test}, demo,
                    bug_file=path, modules=len(steps))


FAMILIES: dict[str, Callable[[int], Instance]] = {"lookup": lookup, "noisy_log": noisy_log,
                                                   "bug_location": bug_location}


def instances(family: str, seeds: Sequence[int] | None = None) -> list[Instance]:
    """The family's instances for `seeds` (default ``range(SEEDS_PER_FAMILY)``), a repeated
    instance (its `split_key`: the statement, or for ``lookup`` the data file) dropped (the first
    seed keeps it)."""
    if family not in FAMILIES:
        raise KeyError(f"unknown task family {family!r}; families: {', '.join(FAMILIES)}")
    out, seen = [], set()
    for seed in range(SEEDS_PER_FAMILY) if seeds is None else seeds:
        inst = FAMILIES[family](seed)
        if inst.split_key not in seen:
            seen.add(inst.split_key)
            out.append(inst)
    return out


# ---- writing: one repository per family, a branch per instance ----------------------------------------


def _data(text: str) -> bytes:
    raw = text.encode()
    return b"data %d\n" % len(raw) + raw + b"\n"


def write_family_repo(path: Path, insts: Sequence[Instance]) -> list[tuple[str, str]]:
    """A bare repository with branch ``<instance_id>`` per instance: the base commit, then the fix
    (tagged ``<instance_id>-fix``). Returns (base sha, fix sha) per instance."""
    run_git("init", "--bare", "-q", "--initial-branch", "main", str(path))
    name, email = DEFAULT_AUTHOR
    stream = bytearray()
    for n, inst in enumerate(insts):
        for j, (msg, files) in enumerate((("Initial commit", inst.base),
                                          (f"Fix {inst.instance_id}", {**inst.fixed, **inst.hidden}))):
            mark, when = 2 * n + j + 1, f"{EPOCH + j * 86_400} +0000"
            stream += f"commit refs/heads/{inst.instance_id}\nmark :{mark}\n".encode()
            stream += f"author {name} <{email}> {when}\ncommitter {name} <{email}> {when}\n".encode()
            stream += _data(msg + "\n") + (f"from :{mark - 1}\n".encode() if j else b"")
            for file, text in sorted(files.items()):
                stream += f"M 100644 inline {file}\n".encode() + _data(text)
        stream += f"tag {inst.instance_id}-fix\nfrom :{2 * n + 2}\ntagger {name} <{email}> {when}\n".encode()
        stream += _data(f"Fix of {inst.instance_id}\n")
    with tempfile.TemporaryDirectory() as tmp:
        marks = Path(tmp) / "marks"
        run_git("fast-import", "--quiet", f"--export-marks={marks}", cwd=path, input=bytes(stream))
        by_mark = dict(line.split() for line in marks.read_text().splitlines())
    return [(by_mark[f":{2 * n + 1}"], by_mark[f":{2 * n + 2}"]) for n in range(len(insts))]


def to_task(inst: Instance, repo: Path, base_sha: str, fix_sha: str, suite: str = "families") -> Task:
    base, fixed = inst.base, {**inst.base, **inst.fixed, **inst.hidden}
    visible = [i for p, text in sorted(base.items()) if is_test_file(p) for i in test_node_ids(p, text)]
    f2p = [i for p, text in sorted(inst.hidden.items()) for i in test_node_ids(p, text)]
    return Task(
        instance_id=inst.instance_id, repo=str(repo), base_commit=base_sha,
        problem_statement=inst.statement.strip() + "\n",
        test_patch=tree_diff(base, fixed, sorted(inst.hidden)), FAIL_TO_PASS=tuple(f2p), PASS_TO_PASS=tuple(visible),
        patch=tree_diff(base, fixed, sorted(inst.fixed)), upstream_refs=(fix_sha, f"{inst.instance_id}-fix"),
        protected_paths=tuple(p for p in inst.hidden if p not in base),
        visible_tests=tuple(p for p in sorted(base) if is_test_file(p)), suite=suite,
        metadata={"family": inst.family, "seed": inst.seed, "split": inst.split, "split_key": inst.split_key,
                  "demonstration": inst.demonstration, **inst.metadata})


def build_suite(repos: Path, suite: str = "families") -> list[Task]:
    """Every family's instances as tasks, their repositories under `repos` (`generate_suite`)."""
    tasks = []
    for family in FAMILIES:
        insts = instances(family)
        repo = repos / f"{family}.git"
        tasks += [to_task(i, repo, b, f, suite) for i, (b, f) in zip(insts, write_family_repo(repo, insts), strict=True)]
    return tasks


# ---- loading ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _all_tasks() -> tuple[Task, ...]:
    from codegym.tasks.loader import load_tasks

    return tuple(load_tasks("families", strict=True))


def family_tasks(split: str = "train", families: Sequence[str] | str | None = None) -> list[Task]:
    """The tasks of `split` (train or heldout), of every family or of `families`."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: use train or heldout")
    wanted = list(FAMILIES) if families is None else [families] if isinstance(families, str) else list(families)
    unknown = [f for f in wanted if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown task families {unknown}; families: {', '.join(FAMILIES)}")
    return [t for t in _all_tasks() if t.metadata["split"] == split and t.metadata["family"] in wanted]
