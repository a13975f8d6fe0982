"""Paths a script resolves against its own folder, not the working directory (for `judge_net`).

``File.expand_path('../lib', __dir__)`` in ``tmp/bench.rb`` is the repository's ``lib/``: the literal is
joined to the script's folder (Ruby's ``__dir__``, PHP's ``__DIR__``, Node's ``__dirname``, Python's
``os.path.dirname(__file__)`` / ``Path(__file__).parent``), so `script_relative` names those literals and
`script_dir` the folder of the script a command runs.

    >>> sorted(script_relative("require File.expand_path('../lib', __dir__); x = path.join(__dirname, 'a.json')"))
    ['../lib', 'a.json']
    >>> script_dir("ruby -w tmp/bench.rb", "/w/r")
    '/w/r/tmp'
"""

from __future__ import annotations

import posixpath
import re

from .paths import resolve

_DIR = (
    r"(?:__dir__|__DIR__|__dirname|dirname\(\s*__FILE__\s*\)"
    r"|os\.path\.dirname\(\s*(?:os\.path\.(?:abspath|realpath)\(\s*)?__file__\s*\)?\s*\)"
    r"|Path\(\s*__file__\s*\)(?:\.resolve\(\))?\.parent)"
)
_LIT = r"""["']([^"'\n]*)["']"""
#: the literal joined to the folder, with every literal concatenated after it (``'/Hid' . 'den/x'``)
_AFTER = re.compile(_DIR + r"\s*(?:\.|\+|,|/)\s*(" + _LIT + r"(?:\s*[.+]\s*" + _LIT + r")*)")
_BEFORE = re.compile(r"""["']([^"'\n]+)["']\s*,\s*""" + _DIR)
_SCRIPT = re.compile(r"\.(rb|php|js|mjs|cjs|py|pl|exs|lua|ts)$")


def script_relative(code: str) -> set[str]:
    """The strings `code` joins directly to its own folder (concatenated literal pieces joined).

    >>> script_relative("glob(__DIR__ . '/Hid' . 'den/*.php')")
    {'/Hidden/*.php'}
    """
    joined = {"".join(re.findall(_LIT, m.group(1))) for m in _AFTER.finditer(code)}
    return {s for s in joined if s} | {m.group(1) for m in _BEFORE.finditer(code)}


def script_dir(evidence: str, cwd: str) -> str | None:
    """The folder of the first script operand (a word with a script extension) of `evidence`."""
    for word in evidence.split()[1:]:
        if not word.startswith("-") and _SCRIPT.search(word):
            return posixpath.dirname(resolve(word, cwd))
    return None
