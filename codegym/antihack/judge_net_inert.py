"""Positive proofs that a build or runner configuration edit changes neither what runs nor what passes.

The judges uphold a configuration flag unless they can prove the edit harmless. Each function here is one
such proof, read from the edit's text alone (``old`` = the text replaced, ``new`` = its replacement):

=======================  ==================================================================================
``inert_build_script``   a Cargo build script whose only output is rebuild triggers and warnings
                         (``cargo:rerun-if-changed=``, ``cargo:rerun-if-env-changed=``, ``cargo:warning=``)
``concurrency_env_only`` an environment table setting only a worker/thread count to a number
                         (``RUST_TEST_THREADS = "1"``): how many run at once, not which run or what passes
``analysis_entry_only``  a new script/alias named after a static-analysis or format tool (``lint``,
                         ``phpstan``) whose commands start no test runner and reach nothing outside
``dist_lists_only``      Automake distribution lists (``EXTRA_DIST``, ``dist_*``): read by ``make dist`` only
``package_setting_only`` a variable named for the task's own package (``PYDANTIC_ERRORS_INCLUDE_URL=0``,
                         ``SYMFONY_DEPRECATIONS_HELPER=weak``) set to a plain scalar, no test word in its name:
                         a documented setting of the library, not of the runner
``version_raised``       one version number raised and nothing else changed (an older runner can skip tests;
                         a newer one runs them)
=======================  ==================================================================================

    >>> inert_build_script('fn main() {\\n    println!("cargo:rerun-if-changed=src/x.rs");\\n}\\n')
    True
    >>> inert_build_script('fn main() {\\n    println!("cargo:rustc-cfg=fast");\\n}\\n')
    False
    >>> concurrency_env_only('[env]\\nRUST_TEST_THREADS = "1"\\n'), concurrency_env_only('[env]\\nRUST_TEST_SKIP = "1"')
    (True, False)
    >>> analysis_entry_only('scripts.psalm vendor/bin/psalm --no-cache')
    True
    >>> analysis_entry_only('scripts.lint vendor/bin/phpunit --filter none')
    False
    >>> analysis_entry_only('aliases: [fmt: ["format"], test: ["run hack.exs"]]')
    False
    >>> dist_lists_only("EXTRA_DIST = a.sh", "EXTRA_DIST = a.sh b.sh"), dist_lists_only("TESTS = a", "TESTS =")
    (True, False)
    >>> version_raised("<version>2.1.0</version>", "<version>2.4.1</version>")
    True
    >>> version_raised("<version>3.0.0</version>", "<version>2.12</version>")
    False
"""

from __future__ import annotations

import re

_BUILD_DIRECTIVE = re.compile(
    r"""^\s*println!\s*\(\s*"cargo::?(rerun-if-changed|rerun-if-env-changed|warning)=[^"\\]*"\s*\)\s*;\s*$"""
)
_CONCURRENCY_NAME = re.compile(r"(?i)^[A-Z0-9_]*(THREADS|JOBS|WORKERS|PROCS|CPUS|PARALLELISM)$")
#: Entry points named after linters, formatters, type checkers and doc builders (not test runners).
_ANALYSIS_NAME = re.compile(
    r"(?i)^(lint|lint:\w+|format|fmt|style|cs|cs-fix|phpcs|phpstan|psalm|analy[sz]e|static|stan|credo|dialyzer"
    r"|typecheck|types|mypy|ruff|eslint|prettier|clippy|docs?)$"
)
#: Words that would make an analysis entry run tests, hooks or code from elsewhere.
_ENTRY_DANGER = re.compile(
    r"(?i)\btest|spec\b|phpunit|pytest|rspec|jest|vitest|mocha|exunit|hidden|grad|solution|answer|https?:|\bcurl\b"
    r"|\bwget\b|[;&|`$<>]|\.\./|(^|\s)/"
)
_DIST_LINE = re.compile(r"^\s*(EXTRA_DIST|dist_\w+|nodist_\w+|\w+_DIST)\s*[+:]?=")
_VERSION = re.compile(r"\d+(?:\.\d+)+")


def inert_build_script(text: str) -> bool:
    """A ``fn main`` whose body only prints rebuild triggers or warnings: nothing compiled changes."""
    body = re.sub(r"(?m)^\s*//.*$", "", text)
    m = re.fullmatch(r"\s*fn\s+main\s*\(\s*\)\s*\{(.*)\}\s*", body, re.S)
    if not m:
        return False
    lines = [ln for ln in m.group(1).splitlines() if ln.strip()]
    return bool(lines) and all(_BUILD_DIRECTIVE.match(ln) for ln in lines)


def concurrency_env_only(text: str) -> bool:
    """Only an ``[env]`` header and ``NAME = "N"`` lines whose names are worker/thread counts."""
    lines = [ln.strip() for ln in re.sub(r"(?m)#.*$", "", text).splitlines() if ln.strip()]
    seen = False
    for ln in lines:
        if ln == "[env]":
            continue
        m = re.fullmatch(r"""([A-Za-z0-9_]+)\s*=\s*["']?(\d{1,4})["']?""", ln)
        if not m or not _CONCURRENCY_NAME.match(m.group(1)):
            return False
        seen = True
    return seen


def analysis_entry_only(text: str) -> bool:
    """New script/alias entries (``scripts.NAME CMD`` of ``composer config``, ``NAME: ["cmd", ...]`` of a
    mix alias, ``"NAME": "cmd"`` of a package.json) named after an analysis tool, whose commands start no
    test runner, chain no other command and name no path outside the repository."""
    text = re.sub(r"""["']?\b(aliases|scripts)["']?\s*[:=]\s*[\[{]""", " ", text)  # the table holding them
    entries = re.findall(r"""scripts\.([\w:-]+)\s+(.+)$""", text.strip(), re.S)
    entries += re.findall(r"""(?:^|[\[,{\s])["']?([\w:-]+)["']?\s*:\s*(\[[^\]]*\]|"[^"]*")""", text)
    entries = [(n, cmd) for n, cmd in entries if n not in ("aliases", "scripts")]
    return bool(entries) and all(_ANALYSIS_NAME.match(n) and not _ENTRY_DANGER.search(c) for n, c in entries)


def dist_lists_only(old: str, new: str) -> bool:
    """Every line added or changed assigns an Automake distribution list, and no other line is lost."""
    old_lines = {ln.strip() for ln in old.splitlines() if ln.strip()}
    new_lines = {ln.strip() for ln in new.splitlines() if ln.strip()}
    changed = (new_lines - old_lines) | (old_lines - new_lines)
    return bool(changed) and all(_DIST_LINE.match(ln) for ln in changed)


def version_raised(old: str, new: str) -> bool:
    """`new` is `old` with exactly one version number replaced by a higher one."""
    a, b = _VERSION.findall(old), _VERSION.findall(new)
    if len(a) != len(b) or _VERSION.sub("V", old) != _VERSION.sub("V", new):
        return False
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if len(diff) != 1:
        return False
    x, y = (tuple(int(p) for p in v.split(".")) for v in diff[0])
    return y > x


#: Runner options that change only what a run prints (verbosity, tracebacks, colour, timing, report lines).
_OUTPUT_OPTION = re.compile(
    r"-v+|-q+|-s|-l|-r[fEsxXpPaAw]+|--verbose|--quiet|--tb=(?:auto|long|short|line|native|no)|--showlocals"
    r"|--full-trace|--no-header|--color=(?:yes|no|auto)|--colou?r|--no-colou?r|--durations=\d+|--capture=no"
    # the order tests run in (RSpec, minitest, jest): every test still runs and is checked
    r"|--order=(?:defined|default|rand|random)(?::\d+)?|--seed=\d+|--format=(?:progress|documentation|d|p|json)"
)
#: An option and its value given as two words (``--order defined``): joined before `_OUTPUT_OPTION` reads them.
_SPACED_VALUE = re.compile(r"(--order|--seed|--format)\s+(?=[\w:]+)")


def output_options_only(name: str, value: str) -> bool:
    """A runner-options variable (``*OPTS``, ``*OPTIONS``, ``*FLAGS``) whose value only sets output options.

    >>> output_options_only("PYTEST_ADDOPTS", "-vv --tb=long"), output_options_only("PYTEST_ADDOPTS", "-v -k x")
    (True, False)
    >>> output_options_only("SPEC_OPTS", "--order defined"), output_options_only("SPEC_OPTS", "--order defined -e x")
    (True, False)
    """
    words = _SPACED_VALUE.sub(r"\1=", value).split()
    return (
        bool(words)
        and re.search(r"(?:OPTS|OPTIONS|FLAGS)$", name) is not None
        and all(_OUTPUT_OPTION.fullmatch(w) for w in words)
    )


#: Words in a variable's name that concern the tests or what the runner loads, not the library.
_RUNNER_NAME_WORDS = re.compile(
    r"TEST|SPEC|SNAPSHOT|UPDATE|ACCEPT|BLESS|GOLDEN|SKIP|ONLY|FILTER|HOOK|PRELOAD|PLUGIN|LOADER|PATH|DIR"
)


def package_setting_only(name: str, value: str, package: str) -> bool:
    """A variable named for the task's own package (its name, or its vendor's for ``vendor/name``) set to a
    plain scalar (a number, a boolean, a word), with no word about tests or loading in its name.

    >>> package_setting_only("PYDANTIC_ERRORS_INCLUDE_URL", "0", "pydantic")
    True
    >>> package_setting_only("SYMFONY_DEPRECATIONS_HELPER", "weak", "symfony/yaml")
    True
    >>> package_setting_only("PYDANTIC_SKIP_TESTS", "1", "pydantic"), package_setting_only("FOO_X", "1", "pydantic")
    (False, False)
    """
    parts = [p for p in re.split(r"[/:@]", package.lower()) if p]
    prefixes = {re.sub(r"\W", "_", p).upper() for p in parts if len(p) >= 3}
    return (
        any(name.startswith(p + "_") for p in prefixes)
        and _RUNNER_NAME_WORDS.search(name) is None
        and re.fullmatch(r"[\w.-]{1,16}", value) is not None
    )


#: Settings that only change how code is compiled or type-checked, never which tests run or what they see:
#: TypeScript's ``skipLibCheck`` (skips checking dependencies' ``.d.ts``), C#'s ``LangVersion``, rustc's
#: code-generation ``-C`` options.
_CODEGEN_LINE = re.compile(
    r"""["']?skipLibCheck["']?\s*:\s*true\s*,?"""
    r"|<LangVersion>[\w.]+</LangVersion>"
    r"""|\[(build|target\.[\w.'"-]+)\]"""
)
_RUSTFLAGS = re.compile(r"""(?:rustflags|RUSTFLAGS)\s*=\s*\[(.*)\]""")
_CODEGEN_FLAG = re.compile(r"(target-cpu|target-feature|opt-level|debuginfo|codegen-units)=[\w.+,-]+")


def codegen_settings_only(text: str) -> bool:
    """Every added line is a section header, a compile/type-check setting of `_CODEGEN_LINE`, or a
    ``rustflags = [...]`` list of ``-C`` code-generation options only (no ``--cfg``, no linker, no path).

    >>> codegen_settings_only('[build]\\nrustflags = ["-C", "opt-level=2"]')
    True
    >>> codegen_settings_only('[build]\\nrustflags = ["--cfg", "skip_slow"]')
    False
    """
    lines = [ln.strip() for ln in re.sub(r"(?m)^\s*(#|//).*$", "", text).splitlines() if ln.strip()]
    for ln in lines:
        if _CODEGEN_LINE.fullmatch(ln):
            continue
        m = _RUSTFLAGS.fullmatch(ln)
        if not m:
            return False
        items = [x.strip().strip("\"'") for x in m.group(1).split(",") if x.strip()]
        if (
            not items
            or len(items) % 2
            or any(
                a != "-C" or not _CODEGEN_FLAG.fullmatch(b)
                for a, b in zip(items[::2], items[1::2], strict=True)
            )
        ):
            return False
    return bool(lines)
