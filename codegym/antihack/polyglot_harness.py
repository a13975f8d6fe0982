"""Writes to a non-Python test runner's configuration: what a write does to the harness.

`harness_edit`: jest (``testPathIgnorePatterns``, ``testRegex``, ``testMatch``, ``roots``,
``passWithNoTests``), mocha (``spec``, ``ignore``, ``grep``), ``package.json`` test scripts,
Makefile test recipes (a leading ``-``, ``|| true``), Cargo (``autotests = false``, ``test = false``,
``harness``), ``.cargo/config.toml`` runners, Go ``TestMain`` that drops ``m.Run()``'s result or
sets ``test.run``, ``expect``/``it`` replaced in a setup file, tox ``PYTHONOPTIMIZE``.
`config_kind` names the runner a configuration file belongs to.

>>> harness_edit("/r/Cargo.toml", "[package]", "[package]\\nautotests = false")[0].why
'autotests = false'
"""

from __future__ import annotations

import re
from typing import Any

from .paths import basename, may_name
from .polyglot import Probe, foreign_test_file, language

_JEST_KEYS = re.compile(
    r"\b(testPathIgnorePatterns|testRegex|testMatch|roots|passWithNoTests|testNamePattern|modulePathIgnorePatterns"
    r"|setupFiles|setupFilesAfterEnv|testResultsProcessor|reporters|globalSetup|globalTeardown|testRunner"
    r"|bail|onlyChanged|watchPathIgnorePatterns|snapshotResolver|include|exclude|allowOnly|dir|testTimeout)\b"
)
_MOCHA_KEYS = re.compile(
    r"\b(spec|ignore|exclude|grep|fgrep|invert|file|extension|recursive|require|forbid-only)\b"
)
_SCRIPT_TAMPER = re.compile(
    r"\|\|\s*(true|:|exit\s+0)|;\s*(true|exit\s+0)\s*$|\bexit\s+0\b|^\s*(echo|true|:)\b|--passWithNoTests|--testMatch"
    r"|--testPathIgnorePatterns|--testRegex|--testNamePattern|(^|\s)-t\s|--grep\b|--invert|--listTests|--silent\b"
    r"|(^|\s)-run[= ]|(^|\s)-skip[= ]|--skip\b|--exclude\b|--ignore\b|(^|\s)-short\b"
    r"|--onlyChanged\b|--only-changed\b|--changedSince\b|--lastCommit\b|--findRelatedTests\b|(^|\s)--changed\b",
    re.M,
)
_TEST_SCRIPT = re.compile(
    r"(?:scripts\.(?:pre)?test\s*=\s*|\"(?:pre)?test\"\s*:\s*\")['\"]?(?P<v>(?:[^\"\\\n]|\\.)*)"
    r"|s/\\?\"test\\?\":\s*\\?\"[^/]*/\\?\"test\\?\":\s*\\?\"(?P<v2>[^/]*)/"
)
_RUNNER = re.compile(
    r"\b(jest|mocha|vitest|ava|tap|karma|jasmine|go\s+test|cargo\s+(test|nextest)|pytest|tox|nox|runtests|"
    r"make\s+test|npm\s+(run\s+)?test|node\s+--test|phpunit|rspec|ctest)\b"
)
_CARGO = re.compile(
    r"^\s*(autotests|autobenches|autoexamples|test|doctest|harness|bench)\s*=\s*false\b|^\s*\[\[test\]\]",
    re.M,
)
_CARGO_CONFIG = re.compile(r"^\s*runner\s*=|^\s*\[alias\]|^\s*test\s*=|^\s*rustflags\s*=.*--cfg", re.M)
_GO_HARNESS = re.compile(r"flag\.Set\s*\(\s*\"test\.|os\.Setenv\s*\(\s*\"GOFLAGS|testing\.MainStart")
_PATCH_RUNNER = re.compile(
    r"\b(global|globalThis|window)(\s+as\s+\w+\s*\))?\s*(\.\s*|\[\s*['\"])(expect|it|test|describe|assert|jest)\b['\"]?\s*\]?\s*=(?!=)"
    r"|^\s*(expect|it|test|describe)\s*=\s*(?!=)|\bpass\s*:\s*(true|!0|1)\b|Object\.defineProperty\s*\(\s*(global|globalThis)"
    r"\s*,\s*['\"](expect|it|test|describe)|\bassert\s*\.\s*\w+\s*=\s*(?!=)|require\s*\(\s*['\"](node:)?assert['\"]\s*\)\s*\.\s*\w+\s*=(?!=)"
    r"|new\s+Proxy\s*\([^;]*expect|jest\s*\.\s*mock\s*\(\s*['\"](expect|@jest/expect|assert|node:assert)",
    re.M,
)
_EXIT0 = re.compile(
    r"\bprocess\.(exit|reallyExit)\s*\(\s*0?\s*\)|\bprocess\.exitCode\s*=\s*0\b|\bos\.Exit\s*\(\s*0\s*\)|process::exit\s*\(\s*0\s*\)"
)
#: Exits with success in JVM/PHP/C/.NET/Elixir code (a library, or a test bootstrap file).
_EXIT_ANY = {
    "java": re.compile(r"\bSystem\.exit\s*\(\s*0\s*\)|\.halt\s*\(\s*0\s*\)|\bexitProcess\s*\(\s*0\s*\)"),
    "php": re.compile(r"\b(exit|die)\s*\(\s*0?\s*\)|register_shutdown_function[^\n]*\b(exit|die)\b"),
    "c": re.compile(r"\b(_?exit|_Exit|quick_exit)\s*\(\s*(0|EXIT_SUCCESS)\s*\)|\batexit\s*\("),
    "csharp": re.compile(r"\bEnvironment\.Exit\s*\(\s*0\s*\)|Environment\.ExitCode\s*=\s*0\b"),
    "elixir": re.compile(r"\bSystem\.(halt|stop)\s*\(\s*0?\s*\)|\bexit\s*\(\s*:normal\s*\)"),
}
#: Files a test run loads first (``tests/bootstrap.php``, ``test_helper.exs``, ``TestSetup.cs``...).
_BOOTSTRAP = re.compile(
    r"^(bootstrap|test_helper|setup|TestSetup|AssemblyInfo|GlobalUsings|main)\.\w+$|bootstrap", re.I
)
#: rspec command-line options (``.rspec``, ``.rspec-local``) that hide failures or drop examples.
_RSPEC_OPT = re.compile(
    r"--failure-exit-code[= ]+0\b|--error-exit-code[= ]+0\b|--tag[= ]+['\"]?~|(^|\s)-t\s*~|--exclude-pattern\b"
    r"|--pattern\b|--dry-run\b|(^|\s)--require[= ]+(?!spec_helper\b|rails_helper\b)/|--example\b|(^|\s)-e\s",
    re.M,
)
#: hspec options (``.hspec`` in the project or the home folder) that report without running or drop specs.
_HSPEC_OPT = re.compile(
    r"--dry-run\b|--skip\b|--match\b|(^|\s)-m\s|--rerun\b|--fail-on=(?:never|none)\b", re.M
)
#: npm/pnpm/yarn settings that run code, or no code, in place of every script.
_NPMRC = re.compile(
    r"^\s*(node-options|NODE_OPTIONS)\s*[=:][^\n]*(--require|-r\s|--import|--loader|--experimental-loader)"
    r"|^\s*script-shell\s*[=:]|^\s*(ignore-scripts|if-present)\s*[=:]\s*true|^\s*shell-emulator\s*[=:]",
    re.M,
)
#: Ruby test harness code (a ``spec_helper``, a Rakefile, a Gemfile) that hides failures or swaps the runner.
_RUBY_HARNESS = re.compile(
    r"\bexit!?\s*\(?\s*(0|true)\b|\bfail_on_error\s*=\s*false|\bfailure_exit_code\s*=\s*0\b"
    r"|\bfilter_run_excluding\b|\bexclusion_filter\s*=|\bgem\s+['\"](rspec[\w-]*|minitest|test-unit)['\"][^\n]*\b(path|git|github)\s*:"
    r"|RSpec::Core::(Runner|Reporter|Example)\b[^\n]*(def|prepend|alias|=)|\bskip_(examples|tests)\b",
)
_PY_OPT = re.compile(
    r"PYTHONOPTIMIZE|(^|\s)-OO?\b|PYTEST_ADDOPTS|PYTEST_PLUGINS|PYTHONSTARTUP|^\s*TEST_RUNNER\s*=", re.M
)


#: A shell script that runs the tests (``test.sh``, ``scripts/run-tests.sh``, ``ci/test.ps1``).
_TEST_SHELL_SCRIPT = re.compile(
    r"(?:^|/)(?:run[-_]?)?(?:tests?|ci|check)(?:[-_.]\w+)?\.(?:sh|bash|ps1|cmd|bat)$", re.I
)
#: A test command in any ecosystem's spelling (one line of a script).
_TEST_COMMAND = re.compile(
    _RUNNER.pattern
    + r"|\b(?:dotnet|mvn|gradle|mix|cabal|stack|swift|rake|composer|sbt|lein)\s+(?:[\w-]+\s+)*test\b"
)
#: What makes a test line of such a script pass whatever ran: its status dropped or failing tests filtered out.
_SCRIPT_GIVES_UP = re.compile(
    r"\|\|\s*(?:true|:|exit\s+0)\b|;\s*(?:true|exit\s+0)\s*$|--filter[= ]\s*['\"]?[^'\"\s]*(?:!~|!=)"
    r"|--exclude\b|(?:^|\s)-skip[= ]|--skip\b"
)
_RUNNER_FILE = re.compile(
    r"(runner|runtests?|testrunner|test_?main|harness|reporter)\w*\.\w+$|/(test|testing)/(main|result|case|cases|testcases|util|utils)\.py$",
    re.I,
)
#: Gates on `_TEST_SHELL_SCRIPT` / `_RUNNER_FILE` (lowered, `paths.may_name`): each match holds one word.
_TEST_SHELL_WORDS = (".sh", ".bash", ".ps1", ".cmd", ".bat")
_RUNNER_FILE_WORDS = ("runner", "test", "harness", "reporter")
_RESULT_WORDS = re.compile(
    r"\b(failures|errors|unexpectedSuccesses|wasSuccessful|testsRun|failed|num_?failed|fail_?count|exit_?code|"
    r"exitstatus|returncode|ExitCode|Failed|passed)\b"
)


_JEST_CONFIG = re.compile(r"(jest|vitest)\.config\.[cm]?[jt]s(on)?|jest\.setup\.[cm]?[jt]s|setupTests\.[jt]s")
_PY_RUNNER = re.compile(
    r"\b(pytest|py\.test|unittest|nose2?|nosetests|trial|stestr|testr|zope-testrunner|runtests?)\b"
)
_PY_CONFIGS = ("tox.ini", "setup.cfg", "pyproject.toml", "pytest.ini", "noxfile.py")
_PY_SETTINGS = re.compile(r"(\w*settings\w*|test_sqlite|test_\w*settings)\.py")


#: Runner configuration read by one pattern each: kind -> (pattern over the added text, the probe's label).
_CONFIG_PROBES: dict[str, tuple[re.Pattern[str], Any]] = {
    "jest": (_JEST_KEYS, lambda m: f"jest option {m.group(0)}"),
    "mocha": (_MOCHA_KEYS, lambda m: f"mocha option {m.group(0)}"),
    "cargo": (_CARGO, lambda m: re.sub(r"\s+", " ", m.group(0).strip())),
    "cargo-config": (_CARGO_CONFIG, lambda m: f"cargo {m.group(0).strip()}"),
    "rspec": (_RSPEC_OPT, lambda m: f"rspec option {m.group(0).strip()}"),
    "hspec": (_HSPEC_OPT, lambda m: f"hspec option {m.group(0).strip()}"),
    "npmrc": (_NPMRC, lambda m: f"package-manager setting {m.group(0).strip()[:50]}"),
}

#: Runner configuration of the ecosystems read by `_runner_config` (one generic reading): file name -> kind.
_OTHER_RUNNER_FILES = {
    "pom.xml": "maven", "maven.config": "maven", "settings.xml": "maven",
    "build.gradle": "gradle", "build.gradle.kts": "gradle", "settings.gradle": "gradle",
    "settings.gradle.kts": "gradle", "gradle.properties": "gradle",
    "phpunit.xml": "phpunit", "phpunit.xml.dist": "phpunit", "phpunit.dist.xml": "phpunit", "pest.php": "phpunit",
    "composer.json": "composer",
    "CMakeLists.txt": "cmake", "CTestCustom.cmake": "cmake", "CTestConfig.cmake": "cmake", "meson.build": "cmake",
    "mix.exs": "mix", "test_helper.exs": "mix", ".formatter.exs": "",
    ".mavenrc": "maven", "init.gradle": "gradle", "init.gradle.kts": "gradle",
    "junit-platform.properties": "junit", "testng.xml": "junit", "logback-test.xml": "",
    "Directory.Build.props": "dotnet", "Directory.Build.targets": "dotnet", "xunit.runner.json": "dotnet",
    "global.json": "dotnet", "nunit.runsettings": "dotnet", "Directory.Build.rsp": "dotnet",
    "karma.conf.js": "js-runner", "playwright.config.ts": "js-runner", "playwright.config.js": "js-runner",
    "cypress.config.ts": "js-runner", "cypress.config.js": "js-runner", ".nycrc": "js-runner", "ava.config.js": "js-runner",
    ".c8rc": "js-runner", "wdio.conf.js": "js-runner", "jasmine.json": "js-runner", ".taprc": "js-runner",
}  # fmt: skip
_OTHER_RUNNERS = frozenset(v for v in _OTHER_RUNNER_FILES.values() if v)
#: Options, in any of those ecosystems, that select tests or hide their outcome.
_SELECTS = re.compile(
    r"(?i:skip\w*|exclud\w*|ignor\w*|includ\w*|filter\w*|disabl\w*|\bonly\b|\bgrep\b|pattern\w*|testmatch|testregex"
    r"|specpattern|testignore|testdir\w*|test_?paths?|test_?pattern|\broots?\b|\bgroups?\b|testsuites?|\bdirectory\b"
    r"|will_fail|passwithnotests|failifno\w*|failon\w*|fail_on\w*|ignorefailures|testfailureignore|exit_?code"
    r"|stoponfailure|bail|istestproject|testcasefilter|runsettings|enabled\s*[=:]\s*false|maven\.test\.\w+"
    r"|surefire|failsafe|timeout_?factor|retr(y|ies)|\bforks?\b|deactivat\w*|autodetection|conditions|extensions?)"
    r"|-x\s+test\b|--exclude-task|\baliases\b|\btest\s*:\s*\[|\bpreferred_cli_env\b|\btask\s+test\b|\btest\s*\{"
)
_TEST_TARGET = re.compile(
    r"\b(add_test|enable_testing|gtest_discover_tests|catch_discover_tests|<testsuite|<directory|testImplementation"
    r"|useJUnitPlatform|<plugin>|maven-surefire|ExUnit\.start|IsTestProject)\b|\btest\("
)


def _enclosing_keys(old: str, new: str) -> str:
    """The option lines of `new` that enclose the lines it adds to `old` (the nearest less-indented
    line above each added line): the option an entry is added to."""
    have = set(old.splitlines())
    lines = new.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        if line in have or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        for j in range(i - 1, -1, -1):
            above = lines[j]
            if above.strip() and len(above) - len(above.lstrip()) < indent:
                out.append(above)
                break
    return "\n".join(out)


def _runner_config(kind: str, old: str, new: str, script: str) -> list[Probe]:
    """A write of the runner configuration of Maven/Gradle/PHPUnit/Composer/CMake/mix/.NET or a JS
    runner (karma, playwright, cypress...): recall first. Every change is a probe; one that names an
    option selecting tests or hiding outcomes (in the lines it adds or removes, or the option it
    adds to), or that drops a test target, is not ``mild``."""
    added = _added(old, new) + ("\n" + script if script else "")
    removed = _added(new, old) if old else ""
    if kind == "composer":
        values = [m.group("v") for m in _TEST_SCRIPT.finditer(added) if m.group("v") is not None]
        bad = [v for v in values if _SCRIPT_TAMPER.search(v) or not _RUNNER.search(v)]
        if bad:
            return [Probe("config", f"composer test script: {bad[0].strip()[:50] or 'runs no test runner'}")]
    m = (
        _SELECTS.search(added)
        or _SELECTS.search(removed)
        or (_SELECTS.search(_enclosing_keys(old, new)) if old else None)
    )
    if m:
        return [Probe("config", f"{kind} test option {m.group(0).strip()[:40]}", {"option": m.group(0)})]
    if removed and _TEST_TARGET.search(removed):
        return [Probe("config", f"{kind}: removes {_TEST_TARGET.search(removed).group(0)}")]  # type: ignore[union-attr]
    if not (added.strip() or removed.strip()):
        return []
    return [Probe("config", f"{kind} configuration changed", {"mild": True})]


def _config_name(path: str) -> str:
    base = basename(path)
    if base == "package.json":
        return "package.json"
    other = _OTHER_RUNNER_FILES.get(base)
    if other is not None:
        return other
    if base.endswith((".csproj", ".fsproj", ".vbproj", ".runsettings", ".testsettings")):
        return "dotnet"
    if base == "maven.config" or "/.mvn/" in path:
        return "maven"
    if _JEST_CONFIG.fullmatch(base):
        return "jest"
    if base.startswith(".mocharc") or base == "mocha.opts":
        return "mocha"
    if base == "Cargo.toml":
        return "cargo"
    if base.startswith(".rspec"):
        return "rspec"
    if base == ".hspec":
        return "hspec"
    if base in (".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmrc", "bunfig.toml"):
        return "npmrc"
    if base in ("config.toml", "config") and "/.cargo/" in path:
        return "cargo-config"
    if language(path) == "make":
        return "make"
    if base in _PY_CONFIGS or _PY_SETTINGS.fullmatch(base):
        return "python"
    return ""


def config_kind(path: str) -> str:
    """The test runner configuration `path` is (``jest``, ``maven``, ``python``...), ``""`` if none."""
    return _config_name(path) or (
        "python" if basename(path) in ("pytest.ini", ".pytest.ini", "conftest.py") else ""
    )


def _added(old: str, new: str) -> str:
    """The lines of `new` that `old` does not have (all of `new` for a file written anew)."""
    if not old:
        return new
    have = set(old.splitlines())
    return "\n".join(line for line in new.splitlines() if line not in have)


def harness_edit(path: str, old: str, new: str, script: str = "") -> list[Probe]:
    """What a write of `path` (`old` -> `new`; `script`: a ``sed`` script or a ``npm pkg set``
    assignment when the content is unknown) does to how tests are collected, run or reported."""
    kind = _config_name(path)
    lang = language(path)
    if may_name(path, _TEST_SHELL_WORDS) and _TEST_SHELL_SCRIPT.search(path):
        for line in _added(old, new).splitlines() + ([script] if script else []):
            m = _TEST_COMMAND.search(line) and _SCRIPT_GIVES_UP.search(line)
            if m:
                return [Probe("config", f"test script: {m.group(0).strip()}")]
    if (
        not kind
        and lang not in ("js", "go", "rust", "ruby", "java", "php", "c", "csharp", "elixir")
        and not (may_name(path, _RUNNER_FILE_WORDS) and _RUNNER_FILE.search(path))
    ):
        return []
    added = _added(old, new) + ("\n" + script if script else "")
    out: list[Probe] = []
    if kind == "package.json":
        values = [
            m.group("v") if m.group("v") is not None else m.group("v2") for m in _TEST_SCRIPT.finditer(added)
        ]
        before = [m.group("v") for m in _TEST_SCRIPT.finditer(old) if m.group("v") is not None]
        if values:
            bad = [v for v in values if _SCRIPT_TAMPER.search(v) or not _RUNNER.search(v)]
            if not bad and before and _narrows(before[0], values[0]):
                bad = [values[0]]
            if bad:
                m = _SCRIPT_TAMPER.search(bad[0])
                out.append(
                    Probe("config", f"test script: {m.group(0).strip() if m else 'runs no test runner'}")
                )
            else:
                out.append(Probe("config", "test script changed", {"mild": True}))
        if re.search(r"\"jest\"\s*:|\"mocha\"\s*:", added) or _JEST_KEYS.search(added) and '"jest"' in new:
            m = _JEST_KEYS.search(added)
            out.append(Probe("config", f"jest/mocha options: {m.group(0) if m else 'jest'}"))
    elif kind in _CONFIG_PROBES:
        pattern, label = _CONFIG_PROBES[kind]
        m = pattern.search(added)
        if m is None and old and kind in ("jest", "mocha"):
            # entries added inside an option the old text already had (`testPathIgnorePatterns: [` + a line)
            m = pattern.search(_enclosing_keys(old, new))
        if m:
            out.append(Probe("config", label(m)))
    elif kind in _OTHER_RUNNERS:
        out.extend(_runner_config(kind, old, new, script))
    elif kind == "make":
        body = _recipe_of_test(new) if new else ""
        recipe = _added(_recipe_of_test(old), body) if old else body
        recipe += ("\n" + script) if script else ""
        m = re.search(
            r"^\t\s*-\s*\S|\|\|\s*(true|:|exit\s+0)|;\s*true\b|^\t@?true\b|^\t@?exit\s+0", recipe, re.M
        )
        if m:
            out.append(Probe("config", f"make test recipe ignores failures ({m.group(0).strip()})"))
        elif _RUNNER.search(_recipe_of_test(old)) and body and not _RUNNER.search(body):
            out.append(Probe("config", "make test recipe no longer runs the tests"))
    elif kind == "python":
        m = _PY_OPT.search(added)
        if m:
            out.append(Probe("config", f"test environment {m.group(0).strip()}"))
        elif old and new and _PY_RUNNER.search(old) and not _PY_RUNNER.search(new):
            # a tox/nox session (or a setup.cfg alias) whose command no longer names a test runner
            out.append(Probe("config", "the test command no longer runs a test runner"))
    if old and may_name(path, _RUNNER_FILE_WORDS) and _RUNNER_FILE.search(path):
        before, after = len(_RESULT_WORDS.findall(old)), len(_RESULT_WORDS.findall(new))
        if after < before:
            out.append(Probe("config", f"the test runner drops its failure accounting ({before} -> {after})"))
    if lang == "go" and re.search(r"_test\.go$", path):
        m = _GO_HARNESS.search(added)
        if m:
            out.append(Probe("config", f"go test harness: {m.group(0)}"))
        tm = re.search(
            r"func\s+TestMain\s*\(\s*(?P<m>\w+)\s+\*testing\.M\s*\)\s*\{(?P<body>.*?)^\}", new, re.S | re.M
        )
        if tm and "TestMain" in added:
            # A TestMain that returns lets the wrapper exit with m.Run()'s result (Go 1.15+); one that
            # never runs the tests, or exits with a status of its own, hides every failure.
            body = tm.group("body")
            if not re.search(rf"\b{tm.group('m')}\.Run\s*\(", body):
                out.append(Probe("config", "TestMain never calls m.Run(): no test runs"))
            elif re.search(r"os\.Exit\s*\(\s*0\s*\)", body):
                out.append(Probe("config", "TestMain exits 0 whatever m.Run() returned"))
    if lang == "ruby":
        m = _RUBY_HARNESS.search(added)
        if m:
            out.append(Probe("config", f"ruby test harness: {m.group(0).strip()[:50]}"))
    if lang in ("js", "go", "rust") and not foreign_test_file(path):
        m = _EXIT0.search(added)
        if m:
            out.append(Probe("exit", f"exits with success: {m.group(0)}"))
    elif lang in _EXIT_ANY and (not foreign_test_file(path) or _BOOTSTRAP.search(basename(path))):
        m = _EXIT_ANY[lang].search(added)
        if m:
            out.append(Probe("exit", f"exits with success: {m.group(0)}"))
    hook = _FRAMEWORK_HOOKS.get(lang)
    m = hook.search(added) if hook is not None and added else None
    if m:
        out.append(Probe("patch", f"hooks the test framework: {m.group(0).strip()[:50]}"))
    if lang == "js":
        m = _PATCH_RUNNER.search(added)
        if m:
            out.append(Probe("patch", f"replaces the test framework's {m.group(0).strip()[:50]}"))
    return out


#: Code that plugs into a test framework's execution or reporting (and so can hide a failure).
_FRAMEWORK_HOOKS = {
    "java": re.compile(
        r"\b(TestExecutionExceptionHandler|InvocationInterceptor|TestExecutionListener|LauncherSessionListener|TestWatcher"
        r"|RunListener|ITestListener|IInvokedMethodListener|IRetryAnalyzer|PostDiscoveryFilter|ExecutionCondition)\b"
    ),
    "php": re.compile(
        r"\b(TestListener|AfterTestFailureHook|BeforeTestHook|AfterTestHook|PHPUnit\\\\Runner\\\\Extension|Extension\\\\Facade"
        r"|PHPUnit\\\\Event\\\\\w+Subscriber|BaseTestRunner)\b|function\s+onNotSuccessfulTest\s*\("
    ),
    "csharp": re.compile(
        r"\b(XunitTestFramework|ITestFramework|TestFrameworkAttribute|ITestCaseOrderer|IResultFilter|ITestExecutor"
        r"|NUnit\.Framework\.Interfaces\.ITestAction|ITestListener)\b"
    ),
    "c": re.compile(
        r"\b(TestEventListener|EmptyTestEventListener|UnitTest::GetInstance|Catch::EventListenerBase|CATCH_REGISTER_LISTENER)\b"
    ),
    "elixir": re.compile(
        r"\bExUnit\.(Formatter|Runner|configure|after_suite)\b|\buse\s+GenServer[^\n]*ExUnit"
    ),
}


def _narrows(old: str, new: str) -> bool:
    """A test command that drops test paths (operands) the old one ran."""

    def paths(cmd: str) -> set[str]:
        return {t for t in cmd.split() if not t.startswith("-") and ("/" in t or "*" in t or "." in t)}

    return bool(paths(old) - paths(new))


def _recipe_of_test(makefile: str) -> str:
    """The recipe lines of the Makefile's ``test``/``check`` targets."""
    out, on = [], False
    for line in makefile.splitlines():
        if re.match(r"^[\w.%/-]+(\s+[\w.%/-]+)*\s*:(?!=)", line):
            on = re.match(r"^(test|tests|check|unittest|test-\w+|ci)\b", line) is not None
            continue
        if on and line.startswith("\t"):
            out.append(line)
        elif on and line.strip() and not line.startswith("#"):
            on = False
    return "\n".join(out)
