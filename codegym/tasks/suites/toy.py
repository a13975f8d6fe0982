"""The `toy` suite: tiny tasks an agent solves in one to three tool calls.

For fast trainer tests: each repository has a file or two, the problem statement says
exactly what to do, and a hidden pytest file checks it. Same format as every other suite.
"""

from __future__ import annotations

from dataclasses import dataclass

from codegym.tasks.gitrepo import Commit
from codegym.tasks.suites._common import GITIGNORE, ROOT_CONFTEST, TaskSpec, dedent


@dataclass(frozen=True)
class Toy:
    name: str
    statement: str
    base: dict[str, str]  # files besides README, .gitignore, conftest.py
    fixed: dict[str, str]  # files the solution writes
    hidden: str  # content of tests/test_task.py


_RUN = """
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""

TOYS = [
    Toy(
        "hello-file",
        "Create a file `hello.py` at the repository root that prints exactly `Hello, world!` "
        "when run with `python hello.py`.",
        {},
        {"hello.py": 'print("Hello, world!")\n'},
        _RUN
        + """

def test_hello_prints_greeting():
    out = subprocess.run([sys.executable, str(ROOT / "hello.py")], capture_output=True, text=True, check=True)
    assert out.stdout == "Hello, world!\\n"
""",
    ),
    Toy(
        "add-typo",
        "`add(2, 3)` in `calc.py` returns -1 instead of 5. Fix `add`.",
        {
            "calc.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
            "tests/test_calc.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(3, 4) == 12\n",
        },
        {"calc.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"},
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n    assert add(-1, 1) == 0\n",
    ),
    Toy(
        "greeting-typo",
        "`greet(\"Ada\")` in `greet.py` returns `'Helo, Ada!'`. It should return `'Hello, Ada!'`.",
        {"greet.py": 'def greet(name):\n    return f"Helo, {name}!"\n'},
        {"greet.py": 'def greet(name):\n    return f"Hello, {name}!"\n'},
        'from greet import greet\n\n\ndef test_greet():\n    assert greet("Ada") == "Hello, Ada!"\n',
    ),
    Toy(
        "is-even",
        "`is_even` in `numbers_util.py` says 4 is not even. Make it return True exactly for even integers.",
        {"numbers_util.py": "def is_even(n):\n    return n % 2 == 1\n"},
        {"numbers_util.py": "def is_even(n):\n    return n % 2 == 0\n"},
        "from numbers_util import is_even\n\n\ndef test_is_even():\n"
        "    assert is_even(4) and is_even(0) and is_even(-2)\n    assert not is_even(3) and not is_even(-1)\n",
    ),
    Toy(
        "add-square",
        "Add a function `square(x)` to `mathx.py` that returns `x` squared.",
        {
            "mathx.py": "def cube(x):\n    return x * x * x\n",
            "tests/test_mathx.py": "from mathx import cube\n\n\ndef test_cube():\n    assert cube(2) == 8\n",
        },
        {"mathx.py": "def cube(x):\n    return x * x * x\n\n\ndef square(x):\n    return x * x\n"},
        "from mathx import square\n\n\ndef test_square():\n    assert square(3) == 9\n    assert square(-4) == 16\n",
    ),
    Toy(
        "config-json",
        'Create `config.json` at the repository root containing the JSON object `{"debug": false, "port": 8080}`.',
        {},
        {"config.json": '{"debug": false, "port": 8080}\n'},
        "import json\n"
        + _RUN
        + """

def test_config():
    assert json.loads((ROOT / "config.json").read_text()) == {"debug": False, "port": 8080}
""",
    ),
    Toy(
        "reverse-string",
        "Implement `reverse(s)` in `strings.py`: it returns the string `s` reversed.",
        {"strings.py": 'def reverse(s):\n    """Return `s` reversed."""\n    raise NotImplementedError\n'},
        {"strings.py": 'def reverse(s):\n    """Return `s` reversed."""\n    return s[::-1]\n'},
        'from strings import reverse\n\n\ndef test_reverse():\n    assert reverse("abc") == "cba"\n    assert reverse("") == ""\n',
    ),
    Toy(
        "count-up",
        "`count_up(3)` in `counting.py` returns `[1, 2]`; it should return `[1, 2, 3]`.",
        {"counting.py": "def count_up(n):\n    return list(range(1, n))\n"},
        {"counting.py": "def count_up(n):\n    return list(range(1, n + 1))\n"},
        "from counting import count_up\n\n\ndef test_count_up():\n    assert count_up(3) == [1, 2, 3]\n    assert count_up(0) == []\n",
    ),
    Toy(
        "max-retries",
        "Raise `MAX_RETRIES` in `settings.py` from 3 to 5.",
        {"settings.py": 'MAX_RETRIES = 3\nTIMEOUT_SECONDS = 30\nUSER_AGENT = "toy/1.0"\n'},
        {"settings.py": 'MAX_RETRIES = 5\nTIMEOUT_SECONDS = 30\nUSER_AGENT = "toy/1.0"\n'},
        "import settings\n\n\ndef test_max_retries():\n    assert settings.MAX_RETRIES == 5\n    assert settings.TIMEOUT_SECONDS == 30\n",
    ),
    Toy(
        "missing-return",
        "`double(4)` in `doubler.py` returns None instead of 8.",
        {"doubler.py": "def double(x):\n    x * 2\n"},
        {"doubler.py": "def double(x):\n    return x * 2\n"},
        "from doubler import double\n\n\ndef test_double():\n    assert double(4) == 8\n",
    ),
    Toy(
        "version-file",
        "Create a file named `VERSION` at the repository root whose only line is `1.0.0`.",
        {},
        {"VERSION": "1.0.0\n"},
        _RUN + '\n\ndef test_version():\n    assert (ROOT / "VERSION").read_text().strip() == "1.0.0"\n',
    ),
    Toy(
        "default-name",
        "`welcome()` in `welcome.py`, called without an argument, returns `'Welcome, !'`. "
        "Without an argument it should return `'Welcome, stranger!'`.",
        {"welcome.py": 'def welcome(name=""):\n    return f"Welcome, {name}!"\n'},
        {"welcome.py": 'def welcome(name="stranger"):\n    return f"Welcome, {name}!"\n'},
        'from welcome import welcome\n\n\ndef test_welcome():\n    assert welcome() == "Welcome, stranger!"\n'
        '    assert welcome("Bo") == "Welcome, Bo!"\n',
    ),
    Toy(
        "max-of",
        "`max_of([3, 9, 4])` in `stats.py` returns 3. It should return the largest value.",
        {"stats.py": "def max_of(values):\n    return min(values)\n"},
        {"stats.py": "def max_of(values):\n    return max(values)\n"},
        "from stats import max_of\n\n\ndef test_max_of():\n    assert max_of([3, 9, 4]) == 9\n",
    ),
    Toy(
        "remove-debug-print",
        "`compute(x)` in `compute.py` prints a debug line every time it is called. Remove the print; "
        "keep the result the same.",
        {"compute.py": 'def compute(x):\n    print("debug: computing", x)\n    return x * 10 + 1\n'},
        {"compute.py": "def compute(x):\n    return x * 10 + 1\n"},
        "from compute import compute\n\n\ndef test_compute_is_quiet(capsys):\n    assert compute(2) == 21\n"
        '    assert capsys.readouterr().out == ""\n',
    ),
    Toy(
        "absolute-value",
        "`absolute(-3)` in `absval.py` returns -3. It should return the absolute value.",
        {"absval.py": "def absolute(x):\n    return x if x > 0 else x\n"},
        {"absval.py": "def absolute(x):\n    return x if x > 0 else -x\n"},
        "from absval import absolute\n\n\ndef test_absolute():\n    assert absolute(-3) == 3\n    assert absolute(5) == 5\n",
    ),
]


def specs() -> list[TaskSpec]:
    out = []
    for toy in TOYS:
        base = {
            "README.md": f"# {toy.name}\n\nA toy repository.\n",
            ".gitignore": GITIGNORE,
            "conftest.py": ROOT_CONFTEST,
            **toy.base,
        }
        hidden = dedent(toy.hidden)
        out.append(
            TaskSpec(
                instance_id=f"toy-{toy.name}",
                history=[Commit("Initial commit", base)],
                fix=Commit(f"Solve {toy.name}", {**toy.fixed, "tests/test_task.py": hidden}, tag="v0.1.1"),
                problem_statement=toy.statement,
                source_paths=sorted(toy.fixed),
                test_paths=["tests/test_task.py"],
                metadata={"toy": toy.name},
            )
        )
    return out
