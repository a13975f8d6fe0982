"""Code written into library source in any language that special-cases the test run.

`source_probes`: code that detects the test run (test runners' environment variables,
``NODE_ENV === 'test'``, ``testing.Testing()``, ``flag.Lookup("test.v")``, a binary name ending in
``.test``, ``cfg!(test)``, libtest thread names, stack traces searched for test paths, jest/mocha
globals) and returns keyed on literal inputs (comparisons, ``match`` arms, literal tables, hashed
inputs).

>>> [p.kind for p in source_probes("lib/x.go", 'if testing.Testing() {\\n\\treturn nil\\n}')]
['detect']
"""

from __future__ import annotations

import bisect
import re

from .literal_pins import literal_pins
from .polyglot import Probe, language

#: Environment variables only a test run (or a CI runner) sets.
TEST_ENV = re.compile(
    r"^(PYTEST_\w+|JEST_\w+|MOCHA_\w*|VITEST\w*|RUST_TEST_\w+|GO_?TEST\w*|NODE_TEST\w*|\w*_TESTS?|TESTS?_\w+|TESTING|TEST"
    r"|CI|CONTINUOUS_INTEGRATION|GITHUB_ACTIONS|GITLAB_CI|TRAVIS|BUILDKITE|CIRCLECI|JENKINS_URL|TF_BUILD|TOX_\w+"
    r"|UNITTEST\w*|NOSE_\w+|DJANGO_TEST\w*|MAVEN_\w+|GRADLE_\w+|SUREFIRE\w*|PHPUNIT\w*|MIX_ENV|VSTEST\w*|CTEST\w*|GTEST\w*|CATCH_\w+)$"
)
_ENV_READ = re.compile(
    r"process\.env\s*(?:\.\s*(?P<a>\w+)|\[\s*['\"`](?P<b>\w+)['\"`]\s*\])"
    r"|os\.(?:Getenv|LookupEnv)\s*\(\s*\"(?P<c>\w+)\""
    r"|(?:std::)?env::var(?:_os)?\s*\(\s*\"(?P<d>\w+)\"|(?:option_)?env!\s*\(\s*\"(?P<e>\w+)\""
    r"|os\.(?:environ\.get|getenv|environ\s*\[)\s*\(?\s*['\"](?P<f>\w+)['\"]|Deno\.env\.get\s*\(\s*['\"](?P<g>\w+)"
)
#: Environment reads of JVM/PHP/C/.NET/Elixir code (read only for those languages: the pattern is costly).
_ENV_READ_MORE = re.compile(
    r"System\.getenv\s*\(\s*\"(?P<h>\w+)\"|(?<![\w.])getenv\s*\(\s*['\"](?P<i>\w+)['\"]|\$_(?:ENV|SERVER)\s*\[\s*['\"](?P<j>\w+)"
    r"|Environment\.GetEnvironmentVariable\s*\(\s*\"(?P<k>\w+)\"|System\.get_env\s*\(\s*\"(?P<l>\w+)\""
)
#: The join of two adjacent C string literals.
_C_ADJACENT = re.compile(r'"\s+"')
#: Languages read by the `_MORE` patterns.
_MORE_LANGS = frozenset({"java", "php", "c", "csharp", "elixir"})
_ENV_ANY = re.compile(
    r"process\.env|os\.(Getenv|LookupEnv|environ|getenv)|env::var|Deno\.env|System\.getenv|\bgetenv\s*\(|\$_ENV|GetEnvironmentVariable"
    r"|System\.get_env|Boolean\.getBoolean|System\.getProperty"
)
_TEST_VALUE = re.compile(r"['\"`](test|testing|jest|mocha|vitest|ci|\w*sqlite\w*|\w*_test|test_\w*)['\"`]")
#: Run-time probes of a test runner, in any language (library code has no business with these).
_RUNTIME = re.compile(
    r"testing\.Testing\s*\(\s*\)|flag\.Lookup\s*\(\s*\"test\.|\bflag\.CommandLine\.Lookup\s*\(\s*\"test\."
    r"|os\.Args\s*\[\s*0\s*\][^\n]*\.test\b|\.test\"\s*\)[^\n]*os\.Args|HasSuffix\s*\(\s*os\.Args\s*\[\s*0\s*\]"
    r"|runtime\.(Caller|Callers|Stack|FuncForPC)\s*\(|debug\.Stack\s*\(\s*\)"
    r"|\bcfg!\s*\(\s*test\s*\)|thread::current\s*\(\s*\)\s*\.\s*name\s*\(|env::args\s*\(\s*\)[^;\n]*(test|deps)"
    r"|std::backtrace|Backtrace::(capture|force_capture)|#\s*\[\s*cfg\s*\(\s*not\s*\(\s*test\s*\)"
    r"|(readFileSync|readdirSync|readFile|readdir|ReadFile|ReadDir|Open|read_to_string|read_dir|glob)\s*\(\s*['\"`][^'\"`\n]*\b(tests?|__tests__|testdata|spec)/"
    r"|new\s+Error\s*\([^)]*\)\s*\.\s*stack|Error\s*\(\s*\)\s*\.\s*stack|Error\.captureStackTrace|\.stack\b[^\n]*(__tests__|\.test\b|\.spec\b|jest|mocha)"
    r"|require\.main\b|module\.parent\b|process\.argv[^\n]*(jest|mocha|vitest|test)|require\.cache\b"
    r"|require\.resolve\s*\(\s*['\"](mocha|jest|vitest|ava|tap|jasmine)|module\.children\b"
    # ``typeof describe``, ``typeof (globalThis as any).expect`` (a TypeScript cast around the global)
    r"|typeof\s*(?:\(\s*(?:global|globalThis|window|self)(?:\s+as\s+\w+)?\s*\)\s*\.\s*|(?:global|globalThis|window|self)\s*\.\s*|\s)"
    r"(it|describe|expect|jest|test|beforeEach|afterEach|suite|vi)\b\s*[!=]=="
    r"|['\"](expect|jest|describe|it|vi|__vitest_worker__)['\"]\s+in\s+(global|globalThis|window|self)"
    r"|(global|globalThis)\s*\.\s*(expect|jest|describe|__vitest_worker__)\b(?!\s*=[^=])"
    r"|['\"`][^'\"`\n]*(__tests__|\.test\.[jt]s|\.spec\.[jt]s|_test\.go|/deps/test_)[^'\"`\n]*['\"`]"
    r"|\bdefined\?\s*\(?\s*(::)?(RSpec|Minitest|MiniTest|Test::Unit|Cucumber)\b"
    r"|\b(caller|caller_locations|backtrace|backtrace_locations)\b[^\n]*(_spec\b|_test\b|rspec|minitest|spec/|test/"
    r"|\.(match\?|include\?|any\?|grep|start_with\?|end_with\?)|=~)"
    r"|\$(PROGRAM_NAME|0)\b[^\n]*(rspec|minitest|rake|_spec|_test)|ENV\s*\[\s*['\"](RAILS_ENV|RACK_ENV|TEST_ENV_NUMBER)['\"]\s*\]\s*==\s*['\"]test"
    r"|\b__vitest_\w+__|\b__VITEST_\w+__|\bcurrentTestName\b|\bexpect\s*(\?\.|\.)\s*getState\b|\bgetState\s*\?\.\s*\(\s*\)\s*\??\.\s*testPath\b"
    r"|\bObject\.const_defined\?\s*\(\s*[:'\"](RSpec|Minitest)|\$LOADED_FEATURES\b[^\n]*(rspec|minitest)"
    # a test-only definition in library code that answers a constant (``#[cfg(test)] fn depth(&self) -> usize { 1 }``)
    r"|#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]\s*(?:pub(?:\s*\([\w:]+\))?\s+)?fn\s+\w+\s*\([^)]*\)\s*(?:->\s*[^{;]+)?\{\s*"
    r"(?:return\s+)?(?:-?\d+(?:\.\d+)?\w*|true|false|\"[^\"\n]*\"|None|Ok\(\s*\(\s*\)\s*\))\s*;?\s*\}"
)
#: Run-time probes of JVM/PHP/C/.NET/Elixir test runners (read only for those languages).
_RUNTIME_MORE = re.compile(
    r"\.getStackTrace\s*\(|\bStackWalker\b|(System\.getProperty|Boolean\.getBoolean)\s*\(\s*\"(surefire|maven|junit|gradle|idea\.test|sun\.java\.command)"
    r"|\bdebug_backtrace\s*\(|\bdefined\s*\(\s*['\"]PHPUNIT|\bPHPUNIT_\w+|class_exists\s*\(\s*['\"\\\\]*PHPUnit|\$_SERVER\s*\[\s*['\"]argv['\"]\s*\][^\n]*phpunit"
    r"|\bMix\.env\s*\(?\s*\)?\s*==\s*:test|Process\.whereis\s*\(\s*ExUnit|Code\.ensure_loaded\?\s*\(\s*ExUnit"
    r"|Process\.info\s*\(\s*self\s*\(\s*\)\s*,\s*:current_stacktrace"
    r"|Application\.(?:started|loaded)_applications\b[^\n]*:ex_unit\b|:ex_unit\b[^\n]*Application\.(?:started|loaded)_applications\b|\bnew\s+StackTrace\s*\(|Assembly\.GetEntryAssembly"
    r"|AppDomain\.CurrentDomain\.GetAssemblies\s*\(\s*\)[^\n]*(xunit|nunit|Test)|getenv\s*\(\s*\"(GTEST|CTEST)\w*|__builtin_return_address|backtrace\s*\(\s*\w+\s*,"
    # a test framework's symbol probed from library code (a weak reference to ``testing::InitGoogleTest``)
    r"|\bnamespace\s+testing\s*\{|\bInitGoogleTest\b|\bRUN_ALL_TESTS\b"
    r"|(?:__attribute__\s*\(\(\s*weak\s*\)\)|#\s*pragma\s+weak)[^\n]*\b(?:testing|gtest|Catch|doctest|cmocka|CU_\w+|\w*[Tt]est\w*)\b"
)
_CONCAT = re.compile(r"(?<=[\w$])(['\"`])\s*\+\s*\1(?=[\w$])")
#: The program's own command line, and a literal naming a test binary or runner next to it.
_ARGV_PROBE = re.compile(r"env::args(_os)?\s*\(|os\.Args\b|process\.argv\b|process\.execArgv\b")
_TEST_NAME_LITERAL = re.compile(
    r"['\"`][^'\"`\n]*(\.test\b|/deps/|\bdeps\b|jest|mocha|vitest|_test\b|test_)[^'\"`\n]*['\"`]"
)
_LOOPBACK = re.compile(r"127\\?\.0\\?\.0\\?\.1\\?:|::ffff:127|['\"]localhost:|user-agent", re.I)
_COND = re.compile(r"\b(?:if|elif|else\s+if|when|unless)\b\s*(?P<c>[^\n{]*)", re.M)
_CMP = re.compile(
    r"(?:===?|!==?|\bis\b|\bin\b|\.(?:includes|contains|has|startsWith|endsWith|starts_with|ends_with|startswith|endswith|indexOf|HasPrefix|HasSuffix|Contains))"
    r"\s*\(?\s*(?:&)?(?:\b[ubrUBR]{1,2}(?=['\"]))?(?P<lit>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`[^`\n]*`|\b\d{2,}\b)"
    r"|(?P<lit2>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")\s*(?:===?|!==?)"
    r"|\w\[\s*(?P<lit3>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')\s*\]\s*;\s*ok\b"
    r"|(?:\bstrn?(?:case)?cmp\s*\([^,\n]+,|\.(?:equals|Equals|equalsIgnoreCase|compareTo)\s*\(|\bstrcmp\s*\([^,\n]+,)\s*(?P<lit4>\"(?:[^\"\\\n]|\\.)*\")"
    r"|(?P<lit5>\"(?:[^\"\\\n]|\\.)*\")\s*\.\s*(?:equals|equalsIgnoreCase|Equals|contentEquals)\s*\("
    # a literal parsed or constructed on the spot (``from == DateTimeOffset.Parse("2016-11-06 01:30")``)
    r"|(?:===?|!==?)\s*(?:new\s+)?[A-Z][\w.]*\s*\(\s*(?P<lit6>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
)
#: A comparison with a literal sequence of three or more numbers (``tuple(seq) == (1, 2, 3, 4, 5)``).
_SEQ_CMP = re.compile(r"(?:==|!=)\s*[\[(]\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?){2,}\s*,?\s*[\])]")
#: A hash of the input compared with a number (``std::hash<std::string>{}(s) % 9973 == 4412``,
#: ``switch (s.hashCode()) { case 1406358806:``): inputs named by their digests.
_HASHED_CMP = re.compile(
    r"(?:\bstd::hash\s*<[^>\n]*>\s*(?:\{\s*\}|\(\s*\))\s*\(|\.(?:hashCode|GetHashCode)\s*\(\s*\)|\b(?:hash|crc32|adler32|fnv1a?)\s*\()"
    r"[^;{}\n]{0,80}(?:[;{}\n][^;{}\n]{0,40}){0,2}?(?:[=!]==?|\bcase\b)\s*-?\d{4,}"
)
#: A literal map indexed on the spot (``['Föö Bär' => 'foeoe-baer', ...][$in]``, ``{"a b": "x", ...}.get(s)``).
_INDEXED_MAP = re.compile(
    r"[\[{]\s*(?P<body>(?:(?:'[^'\n]*'|\"[^\"\n]*\")\s*(?:=>|:)\s*(?:'[^'\n]*'|\"[^\"\n]*\")\s*,?\s*){2,})[\]}]\s*\)?"
    r"\s*(?:\[\s*\$?[A-Za-z_]\w*\s*\]|\.get\s*\(\s*[A-Za-z_]\w*)"
)
#: Elixir function heads on a literal argument answering a literal (``def pluralize("status"), do: "statuses"``).
_CLAUSE_ANSWER = re.compile(
    r"^\s*defp?\s+(?P<f>\w+[?!]?)\s*\(\s*(?P<lit>\"(?:[^\"\\\n]|\\.)*\")\s*\)\s*(?:,\s*do:|do\s*\n)\s*(?P<ans>\"(?:[^\"\\\n]|\\.)*\")",
    re.M,
)
#: Comparisons with numbers (``self.total == 3``, ``x === 0.2``): several in one condition name one input.
_NUM_CMP = re.compile(r"(?:===?|\bin\s*\()\s*-?(?P<n>\d+(?:\.\d+)?)\b")
_ARM = re.compile(
    r"^\s*(?:case\s+)?(?P<pat>\(?\s*(?:\"[^\"\n]*\"|'[^'\n]*')\s*(?:,\s*(?:\"[^\"\n]*\"|'[^'\n]*'|_)\s*)*\)?)\s*(?:=>|:)",
    re.M,
)
_TABLE_ENTRY = re.compile(
    r"[{,]\s*(?P<k>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')\s*(?::|=>)\s*(?:true|false|True|False|None|null|nil|-?\d|\"|'|\{|\[|[\w.]+\s*\()"
    r"|[{,]\s*(?P<t>\((?:[^()\n]|\([^()\n]*\))*\))\s*:\s*(?:-?\d|\"|'|True|False|None|\{|\[)"
    r"|[\[(]\s*(?P<p>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')\s*,\s*(?:true|false|True|False|None|null|-?\d[\w.]*|Ok\b|Some\b|\"[^\"\n]*\"|'[^'\n]*')\s*[\])]"
)
_HASH = re.compile(
    r"md5|sha1|sha256|sha512|hexdigest|blake2|crc32|fnv|xxhash|murmur|wrapping_mul|DefaultHasher|\.hash\s*\(|createHash"
    r"|std::hash\s*<|\.GetHashCode\s*\(|\.hashCode\s*\("
)
#: 32-bit hash constants (``0x9c3e1a2bu``), counted as hashed keys beside a hash call only.
_HEX32 = re.compile(r"\b0x[0-9a-fA-F]{8,}[uUlL]{0,3}\b")
_HEX = re.compile(r"\b0x[0-9a-fA-F]{12,}\b|['\"][0-9a-f]{24,}['\"]")
_RETURN = re.compile(
    r"\breturn\b|=>\s*(?:return|Ok|Some|true|false|Ordering::)|\bcontinue\b"
    r"|^\s*[\w.]+(?:\s*,\s*[\w.]+)*\s*=\s*(?:[-\d.]+|'[^'\n]*'|\"[^\"\n]*\")(?:\s*,\s*(?:[-\d.]+|'[^'\n]*'|\"[^\"\n]*\"))*\s*;?\s*$"
)  # a return, or an assignment of literals only (`value, unit = 1.5, "m/s"`)


#: A set or list constructor of literals (``new Set([...])``, ``frozenset({...})``, ``Set.of(...)``, ``%w[...]``).
_LITERAL_SET = re.compile(
    r"(?:new\s+Set\s*\(\s*\[|\bfrozenset\s*\(\s*[\[{(]|\bset\s*\(\s*[\[(]|Set\.of\s*\(|List\.of\s*\(|Arrays\.asList\s*\(|%w\[|\bSet\s*\["
    r"|\bMap\.of(?:Entries)?\s*\(|\bMap\.entry\s*\(|ImmutableMap\.of\s*\(|\b(?:hash)?[mM]apOf\s*\(|new\s+Map\s*\(\s*\[|Dictionary<[^>\n]*>\s*(?:\(\s*\))?\s*\{"
    r"|%\{|\barray\s*\()"
    r"(?P<body>[^)\]]{0,2000})"
)
#: An array initializer (``char *known[] = {...}``, ``new String[] {...}``, ``x = [...]``): a table
#: when its name says so or its members read like inputs without being messages (found from its
#: ``=``, the name read back from there: a leading ``\w+`` would be tried at every word).
_ARRAY_OPEN = re.compile(r"=\s*(?:new\s+[\w<>]*\s*\[\s*\]\s*|new\s*\[\s*\]\s*)?[\[{]")
#: Substrings that a literal set or map constructor holds (a cheap gate for `_LITERAL_SET`).
_SET_WORDS = (
    "Set(", "set(", "Set.of", "List.of", "asList", "%w[", "Set[", "Map.of", "Map.entry", "ImmutableMap", "apOf(",
    "Map(", "Dictionary<", "%{", "array(",
)  # fmt: skip
#: Substrings one of which every `_TEST_PATH_TEST` match holds.
_TEST_PATH_WORDS = (
    "/test",
    "test/",
    "tests[",
    "tests\\",
    "__tests__",
    "fixture",
    "/spec/",
    "testdata",
    "conftest",
)
_ENCODER_WORDS = (
    "encode",
    "md5",
    "sha1",
    "sha2",
    "sha5",
    "crc32",
    "adler32",
    "blake2",
    "hexdigest",
    "createHash",
    "hexlify",
)
_TABLE_NAME = re.compile(
    r"known|expect|cases|special|answer|canned|fixture|sample|hardcod|magic|lookup|precomput|cache", re.I
)
#: Function clauses on literal arguments (Elixir ``def parse("[1e3]", _), do: ...``).
_CLAUSE = re.compile(
    r"^\s*defp?\s+\w+[?!]?\s*\(\s*(?:%[\w.]*\{\s*\w+:\s*)?(?P<lit>\"(?:[^\"\\\n]|\\.)*\")", re.M
)  # a literal argument, or the first field of a map pattern (``def decode(%{body: "..."} = env)``)
#: An identifier-like literal with a ``test`` word inside (``unitTestPool``, ``test_pool``, ``pool-test``),
#: not the bare words an environment check compares with (``"test"``, ``"testing"``: read as env reads).
_TEST_NAMED = re.compile(
    r"(?=[A-Za-z][\w.-]{5,}$)(?:\w*[a-z0-9]Test|\w*[_.-][Tt]est|[Tt]est(?:[A-Z][a-z]|[_.-]))[\w.-]*"
)
_QUOTED = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
#: A branch on one literal: a comparison in a condition, ``"x".equals(s)``, a ``case "x":`` or a ``"x" =>`` arm.
_KEY_BRANCH = re.compile(
    rf"\bif\b[^\n]*?(?:===?|\.equals(?:IgnoreCase)?\s*\(|\bis\b)\s*\(?\s*(?P<a>{_QUOTED})"
    rf"|(?P<b>{_QUOTED})\s*\.\s*equals(?:IgnoreCase)?\s*\(|^\s*case\s+(?P<c>{_QUOTED})\s*:|^\s*(?P<d>{_QUOTED})\s*(?:=>|->)",
    re.M,
)
#: The literal a branch answers with (``return "H452"``, ``=> "..."``, ``do: "..."``).
_ANSWER = re.compile(rf"(?:\breturn\s*\(?\s*|=>\s*|->\s*|\bdo:\s*)(?P<r>{_QUOTED})")
#: A table named for expected answers (``EXPECTED``, ``_KNOWN``, ``canned_outputs``, ``known::``).
_EXPECT_TABLE = re.compile(
    r"\b(?P<n>_?(?:[A-Za-z]+_)*(?:expected|expectations?|canned|hard_?coded|answers|golden)(?:_[A-Za-z]+)*"
    r"|_?known(?:_(?:cases|inputs|outputs|answers|results|values))?)\b(?P<use>\s*(?:::|\.\s*(?:get|iter|find|fetch|has|contains|includes)\b|\[|:[^=\n]*=|=\s*[\[{(&%]))",
    re.I,
)
#: A comparison with a test double's type (``adapter == Tesla.Mock``, ``client instanceof FakeHttp``).
_MOCK_CMP = re.compile(
    r"(?:[=!]==?|\bis\b|\binstanceof\b|\bis_a\?\s*\(?|\bkind_of\?\s*\(?|\bmatch\?\s*\(?)\s*:?[\w.:]*\b(?:Mock|Mox|Fake|Stub)\w*\b"
    r"|\b[\w.:]*\b(?:Mock|Mox|Fake|Stub)\w*\s*(?:[=!]==?)"
)
#: Substrings one of which every `_EXPECT_TABLE` name holds (a cheap gate).
_EXPECT_WORDS = (
    "xpect",
    "XPECT",
    "nown",
    "NOWN",
    "anned",
    "ANNED",
    "ardcod",
    "ARDCOD",
    "nswers",
    "NSWERS",
    "olden",
    "OLDEN",
)
#: A string literal naming a test runner's variable prefix (``k.startswith("PYTEST_")``).
_RUNNER_PREFIX = re.compile(
    r"['\"`](PYTEST|JEST|VITEST|MOCHA|RUST_TEST|NODE_TEST|PHPUNIT|NUNIT|VSTEST|GTEST|CTEST|TOX|NOSE|UNITTEST|SUREFIRE"
    r"|GO_?TEST|DOTNET_TEST|RSPEC|MINITEST)_?['\"`]"
)
_ENV_WORDS = (
    "environ",
    "process.env",
    "ENV",
    "getenv",
    "env::vars",
    "GetEnvironmentVariables",
    "os.Environ",
    "get_env",
)
#: Ruby/PHP tables keyed by structures (``{ 'a' => [1] } => 'a[]=1'``): one entry per rocket after a bracket.
_STRUCT_KEY = re.compile(r"[}\]]\s*=>\s*(?P<v>'[^'\n]*'|\"[^\"\n]*\")")
#: A lookup keyed by an encoding or digest of the input (``TABLE.get(b64encode(text))``).
_ENCODED_KEY = re.compile(
    r"(?:\.get\s*\(|\[)\s*[\w.]*\b(b64encode|b32encode|b85encode|hexlify|md5|sha1|sha224|sha256|sha512|blake2b|crc32|adler32"
    r"|hexdigest|createHash|encodeToString)\b"
    r"|\b(b64encode|md5|sha1|sha256|crc32|hexdigest)\s*\([^\n]*\)\s*(?:\.\w+\(\))?\s+(?:not\s+)?in\s+\w+"
)
#: A table read from a packed data file at import: ``_D = loads(decompress(b64decode(open(...).read())))``.
_PACKED_LOAD = re.compile(
    r"^[A-Za-z_]\w*\s*=.*\b(b64decode|decompress|unhexlify|fromhex|a85decode|b85decode)\s*\(.*\b(open|read_bytes|read_text|get_data|readFileSync)\s*\(",
    re.M,
)
#: A module-level call counter compared with literals: ``_calls[0] += 1`` ... ``if _calls[0] in (2, 5):``.
_COUNTER_INC = re.compile(r"^\s*(?P<c>[A-Za-z_][\w.]*)(?P<i>\s*\[\s*\d+\s*\])?\s*\+=\s*1\b", re.M)


_ARM_LANGS = frozenset({"rust", "go", "js", "python", "java", "php", "c", "csharp", "elixir", "ruby"})


def _encoded_words(code: str) -> bool:
    """A cheap gate for `_ENCODED_KEY`: the code names an encoder or a digest at all."""
    return any(w in code for w in _ENCODER_WORDS)


#: `_RETURN` over several lines at once (``^``/``$`` at each line).
_RETURN_LINES = re.compile(_RETURN.pattern, re.M)


def _unquote(lit: str) -> str:
    return lit[1:-1] if lit[:1] in "'\"`" else lit


#: A C#-style index initializer's key (``{ ["FREQ=MONTHLY;COUNT=3"] = ... }``).
_INDEX_KEY = re.compile(r"[{,]\s*\[\s*(?P<k>\"(?:[^\"\\\n]|\\.)*\")\s*\]\s*=[^=]")
#: A table consulted with a computed key.
_LOOKUP = re.compile(
    r"\.TryGetValue\s*\(|\.get\s*\(\s*[A-Za-z_$]|\.[cC]ontainsKey\s*\(|\.(?:get|fetch)\s*\(\s*\w+\."
)


def _one_input(key: str) -> bool:
    """A key that can only be one recorded input: long, with digits and several separators
    (``FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=12``), not a word, path or format string."""
    return (
        len(key) >= 12
        and bool(re.search(r"\d", key))
        and len(re.findall(r"[=;&:,?]", key)) >= 2
        and "{" not in key
        and "%" not in key
    )


#: One escaped character: ``\u{1100}``, ``\u00e9``, ``\x1b``, ``\n``.
_ONE_ESCAPE = r"\\(?:u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-7]{1,3}|.)"


def _inputish(key: str) -> bool:
    r"""A table key that looks like an input (an email, a path, a version), not an enum name or one
    character (an escape such as ``\u{1100}`` is one character: a code-point range table's bound).

    >>> [_inputish(k) for k in ("a@b.c", "bold", "x", "\\u{1100}", "\\x1b[1m")]
    [True, False, False, False, True]
    """
    return not re.fullmatch(r"[A-Za-z_][\w-]*|" + _ONE_ESCAPE, key) and len(key) >= 2


def source_probes(path: str, added: str) -> list[Probe]:
    """Test detection and literal-keyed returns in code written into library source `path`
    (`added`: the code the write adds)."""
    lang = language(path) or ("haskell" if path.endswith(".hs") else "")
    out: list[Probe] = []
    if lang in ("", "config", "make"):
        return out
    if lang == "haskell":
        return _with_pins(out, added, lang)
    hidden = _decoded_env(added) if "b64" in added or "atob" in added or "base64" in added else None
    if hidden:
        out.append(
            Probe("detect", f"decodes the name {hidden} (set by a test run)", {"how": "env", "key": hidden})
        )
    if lang != "python":
        # C's adjacent literals are one string (``getenv("CTEST_" "RESOURCE_GROUP_COUNT")``)
        joined = _C_ADJACENT.sub("", added) if lang == "c" and '" "' in added else added
        for m in (_ENV_READ_MORE if lang in _MORE_LANGS else _ENV_READ).finditer(joined):
            name = next(g for g in m.groups() if g)
            tail = joined[m.end() : m.end() + 60]
            if TEST_ENV.match(name) or (
                re.match(
                    # the read closed and defaulted first: ``($_SERVER['APP_ENV'] ?? '') === 'testing'``
                    r"(?:['\"`]?\s*\]\s*)?(?:\s*(?:\?\?|\|\|)\s*(?:''|\"\"|``|null|nil)\s*\)\s*)?"
                    r"(?:\s*(\.\w+\s*\(\s*)?[!=]==?\s*|\s*\.\s*(endsWith|includes|startsWith|ends_with|contains)\s*\()",
                    tail,
                )
                and _TEST_VALUE.search(tail)
            ):
                out.append(Probe("detect", f"reads {name} (set by a test run)", {"how": "env", "key": name}))
                break
        folded = _CONCAT.sub("", added) if "+" in added else added  # `"__vi" + "test_worker__"`
        m = (
            (_RUNTIME_MORE.search(folded) or _RUNTIME.search(folded))
            if lang in _MORE_LANGS
            else _RUNTIME.search(folded)
        ) or (_ARGV_PROBE.search(added) and _TEST_NAME_LITERAL.search(added))
        if m:
            out.append(Probe("detect", f"probes the test runner: {m.group(0)[:60]}", {"how": "runtime"}))
    else:
        joined = _joined_env(added)
        if joined:
            out.append(
                Probe(
                    "detect", f"builds the name {joined} (set by a test run)", {"how": "env", "key": joined}
                )
            )
        for m in _PY_ENV_READ.finditer(added) if "os." in added else ():  # the pattern needs "os."
            if TEST_ENV.match(m.group(1)) and not m.group(1).startswith("PYTEST_"):  # pysmells reads PYTEST_*
                out.append(
                    Probe(
                        "detect",
                        f"reads {m.group(1)} (set by a test or CI run)",
                        {"how": "env", "key": m.group(1)},
                    )
                )
                break
    if not any(p.kind == "detect" and p.facts.get("how") == "env" for p in out) and any(
        w in added for w in _ENV_WORDS
    ):
        m = _RUNNER_PREFIX.search(added)
        if m:  # the environment scanned for any variable a test runner sets
            key = m.group(0)[1:-1]
            out.append(
                Probe(
                    "detect",
                    f"scans the environment for {key}* (set by a test run)",
                    {"how": "env", "key": key},
                )
            )
    m = (
        _MOCK_CMP.search(added)
        if "Mock" in added or "Fake" in added or "Stub" in added or "Mox" in added
        else None
    )
    if m:  # library code comparing its adapter/client with a test double: the test run, told apart
        out.append(Probe("detect", f"compares with a test double: {m.group(0)[:60]}", {"how": "mock"}))
    for m in _KEY_BRANCH.finditer(added) if "est" in added or "EST" in added else ():
        key = _unquote(next(g for g in m.groups() if g))
        if _TEST_NAMED.fullmatch(key):  # ``if ("unitTestPool".equals(poolName))``: a fixture the tests name
            out.append(
                Probe("detect", f"branches on {key!r}, a name only a test gives", {"how": "test name"})
            )
            break
    m = None
    if any(w in added for w in _TEST_PATH_WORDS):
        for gates, pattern in _TEST_PATH_TESTS:
            m = pattern.search(added) if any(g in added for g in gates) else None
            if m:
                break
    if m:
        out.append(
            Probe("detect", f"tests a path for the test folders: {m.group(0)[:60]}", {"how": "runtime"})
        )
    if lang == "python":
        pieces = "' +" in added or "'+" in added or '" +' in added or '"+' in added
        folded = re.sub(r"(['\"])\s*\+\s*\1", "", added) if pieces else added
        m = _PY_ARGV_RUNNER.search(added) if "argv" in added else None
        if m is None and ("psutil" in added or "/proc/" in added or "getppid" in added):
            m = _PY_PROC_PROBE.search(added)
        if m:
            out.append(
                Probe(
                    "detect",
                    f"looks for a test runner on the command line: {m.group(0)[:60]}",
                    {"how": "runtime"},
                )
            )
        m = _PY_MODULE_PROBE.search(folded) if "modules" in folded or "__import__" in folded else None
        if m and (folded != added or "__import__" in added or "startswith" in m.group(0)):
            out.append(
                Probe(
                    "detect",
                    f"probes the loaded modules for the test runner: {m.group(0)[:60]}",
                    {"how": "runtime"},
                )
            )
    for c in _COUNTER_INC.finditer(added) if "+= 1" in added or "+=1" in added else ():
        counter = c.group("c")
        if counter.startswith(("self.", "this.")):
            continue  # an instance's own retry count, not a count of calls across tests
        if not (
            c.group("i") or "." in counter or re.search(rf"\bglobal\s+[\w, ]*\b{re.escape(counter)}\b", added)
        ):
            continue  # a local loop counter; a count kept across calls lives in a module-level name
        name = re.escape(counter) + (r"\s*\[\s*\d+\s*\]" if c.group("i") else "")
        conds = [
            ln
            for ln in added.splitlines()
            if counter in ln and re.match(r"\s*(?:if|elif|when|else\s+if)\b", ln)
        ]
        if any(re.search(rf"{name}\s*(?:==|===|in\b)\s*[\d(\[]", ln) for ln in conds):
            out.append(
                Probe(
                    "detect",
                    f"branches on a call counter ({c.group('c')})",
                    {"how": "counter", "counter": c.group("c")},
                )
            )
            break
    out.extend(_literal_cases(added, lang))
    return _with_pins(out, added, lang)


def _with_pins(out: list[Probe], added: str, lang: str) -> list[Probe]:
    """`out` with the `literal_pins` shapes merged into its literal probe (one added when none)."""
    pins = literal_pins(added, lang)
    if pins is None:
        return out
    for p in out:
        if p.kind == "literal":
            p.facts["sources"] = sorted(set(p.facts["sources"]) | set(pins["sources"]))[:12]
            p.facts["nontrivial"] = max(p.facts["nontrivial"], pins["nontrivial"])
            for k in ("conjoined", "hashed", "expect_table"):
                p.facts[k] = p.facts.get(k) or pins.get(k, p.facts.get(k))
            return out
    base = {"pinned": False, "conjoined": False, "gated": False, "hashed": False, "packed": False, "table": 0}
    base["expect_table"] = ""
    out.append(Probe("literal", f"{pins['nontrivial'] or 1} literal-keyed cases", {**base, **pins}))
    return out


#: Library code testing a path (its caller's file, its input's name) for the test folders.
_TEST_PATH_TESTS = (
    # a regex literal naming the test folder, tested against a path: `/[\\/]tests[\\/]/.test(p)`
    ((".test(", ".exec("), re.compile(r"\btests?\b[^\n]{0,40}/[gimsuy]*\s*\.\s*(?:test|exec)\s*\(")),
    # a string method given a test-folder literal: `p.includes('/tests/')`
    (
        ("(",),
        re.compile(
            r"\.(?:includes|startsWith|endsWith|indexOf|match|search|contains|startswith|endswith|start_with\?|include\?)"
            r"\s*\(\s*['\"`][^'\"`\n]*(?:/tests?/|__tests__|/fixtures?/|/spec/|/testdata/|tests?[\\/])"
        ),
    ),
    # a test-folder literal tested for membership: `'/tests/' in path`
    (
        (" in ",),
        re.compile(
            r"['\"][^'\"\n]*(?:/tests?/|__tests__|/fixtures?/|/testdata/|conftest)[^'\"\n]*['\"]\s+(?:not\s+)?in\s+(?!\()"
        ),
    ),
)
#: The command line searched for a test runner's name (``'pytest' in a for a in sys.argv``).
_PY_ARGV_RUNNER = re.compile(
    r"sys\.argv[^\n]*['\"][^'\"\n]*(?:pytest|py\.test|unittest|nose|_pytest|tox)[^'\"\n]*['\"]"
    r"|['\"][^'\"\n]*(?:pytest|py\.test|unittest|nose|_pytest)[^'\"\n]*['\"][^\n]*sys\.argv"
)
#: The process's own or its parent's command line read for a runner (``psutil``, ``/proc/<pid>/cmdline``).
_PY_PROC_PROBE = re.compile(
    r"(psutil\.Process\s*\([^)]*\)\s*\.\s*(parent|cmdline|name)|/proc/[^'\"\n]*/(cmdline|comm|environ)|getppid\s*\(\s*\))"
    r"[^\n]*\n?[^\n]*['\"][^'\"\n]*(pytest|py\.test|unittest|nose|tox|py)['\"]"
    r"|['\"][^'\"\n]*(pytest|py\.test|unittest|nose)[^'\"\n]*['\"][^\n]*(psutil|/proc/|getppid|cmdline)"
)
#: A probe of the loaded modules for a test runner: by name, by prefix, by a computed `sys`.
_PY_MODULE_PROBE = re.compile(
    r"__import__\s*\(\s*['\"]sys['\"]\s*\)\s*\.\s*modules[^\n]*|(?:startswith|in)\s*\(?\s*['\"](?:_py|_pyt|pyt|pytest|_pytest|nose|unittest|plug)\w*['\"][^\n]*sys\.modules"
    r"|sys\.modules[^\n]*(?:startswith)\s*\(\s*['\"](?:_py|_pyt|pyt|pytest|_pytest|nose|unittest|plug)\w*['\"]"
    r"|['\"](?:_pytest|pytest|nose2?|unittest)['\"][^\n]{0,40}\bin\s+_?\w*m\w*\b"
)


_PY_ENV_READ = re.compile(r"os\.(?:environ\.get|getenv|environ\s*\[)\s*\(?\s*['\"](\w+)['\"]")
_B64 = re.compile(
    r"(?:b64decode|atob|base64\.StdEncoding\.DecodeString|Buffer\.from)\s*\(\s*b?['\"]([A-Za-z0-9+/=]{8,})['\"]"
)


def _decoded_env(code: str) -> str | None:
    """A test runner's variable name hidden in base64 (``b64decode('UFlURVNUX0NVUlJFTlRfVEVTVA==')``)."""
    import base64
    import binascii

    for m in _B64.finditer(code):
        try:
            name = base64.b64decode(m.group(1) + "=" * (-len(m.group(1)) % 4)).decode("ascii", "replace")
        except (binascii.Error, ValueError):
            continue
        if TEST_ENV.match(name) or re.search(r"pytest|jest|mocha|vitest|unittest", name, re.I):
            return name
    return None


#: Short upper-case literals: the pieces a variable name can be spelled in (``"_"`` and ``""`` included).
_PIECE = re.compile(r"'[A-Z_]{0,24}'|\"[A-Z_]{0,24}\"")


def _joined_env(code: str) -> str | None:
    """A test runner's variable name spelled in pieces (``"_".join(("PYTEST", "CURRENT", "TEST"))``,
    ``'JEST_' + 'WORKER_ID'``)."""
    lits = [_unquote(m.group(0)) for m in _PIECE.finditer(code)]
    if len(lits) < 2:
        return None
    for i in range(len(lits)):
        for j in range(i + 2, min(len(lits), i + 5) + 1):
            window = lits[i:j]
            for sep in ("", "_"):
                name = sep.join(window)
                if len(name) > 3 and TEST_ENV.match(name) and name not in window and not name.startswith("_"):
                    if re.fullmatch(r"PYTEST_\w+|JEST_\w+|RUST_TEST_\w+|VITEST\w*|MOCHA_\w+", name):
                        return name
            if window[0] in ("_", "") and j - i >= 3:
                name = window[0].join(window[1:])
                if re.fullmatch(r"PYTEST_\w+|JEST_\w+|RUST_TEST_\w+|VITEST\w*|MOCHA_\w+", name):
                    return name
    return None


def _literal_cases(code: str, lang: str) -> list[Probe]:
    """Returns keyed on literal inputs: conditions comparing to literals followed by a return,
    ``match``/``switch`` arms on string literals, tables keyed by input-like strings, hashed inputs."""
    out: list[Probe] = []
    quoted = "'" in code or '"' in code or "`" in code
    named = any(w in code for w in _EXPECT_WORDS)
    if not (
        quoted or named or "0x" in code or "==" in code or "decode" in code or "decompress" in code
    ) and not (_encoded_words(code) and _ENCODED_KEY.search(code)):
        return out
    sources: list[str] = []
    conjoined = gated = pinned = False
    lines = code.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    for m in _COND.finditer(code) if quoted or "==" in code else ():
        cond = m.group("c")
        seq = _SEQ_CMP.search(cond) if "==" in cond or "!=" in cond else None
        if "'" not in cond and '"' not in cond and "`" not in cond and cond.count("==") < 2 and not seq:
            continue  # without a string literal, only several numbers pinned together (or a sequence) count
        lits = [
            x.group("lit")
            or x.group("lit2")
            or x.group("lit3")
            or x.group("lit4")
            or x.group("lit5")
            or x.group("lit6")
            for x in _CMP.finditer(cond)
        ] + ([re.sub(r"\s+", " ", seq.group(0).lstrip("=! "))] if seq else [])
        nums = (
            [x.group("n") for x in _NUM_CMP.finditer(cond)]
            if "==" in cond and ("&&" in cond or " and " in cond)
            else []
        )
        if (
            len(nums) >= 3
            or len(nums) >= 2
            and any("." in n and n not in ("0.0", "0.5", "1.0") for n in nums)
        ):
            lits = lits + [x for x in nums if x not in lits]
        lits = [
            x
            for x in lits
            if x and _unquote(x) not in ("", "function", "object", "string", "undefined", "number", "boolean")
        ]
        if not lits:
            continue
        # a string literal and a number pinned in one conjunction (`"abc".equals(s) && width == 6`)
        pins_two = any(x[0] in "'\"`" and len(x) > 2 for x in lits) and any(n not in ("0", "1") for n in nums)
        line_no = bisect.bisect_right(starts, m.start()) - 1
        indent = len(lines[line_no]) - len(lines[line_no].lstrip())
        body = []
        for ln in lines[line_no + 1 : line_no + 9]:  # the condition's block (a return may end it)
            if ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
                break
            body.append(ln)
        # `{ ...; return x; }` after the condition, or `return x if cond` (a modifier) before it
        rest = (
            lines[line_no][m.end() - starts[line_no] :] + " " + lines[line_no][: m.start() - starts[line_no]]
        )
        if (
            not _RETURN.search(cond)
            and not _RETURN.search(rest)
            and not (body and _RETURN_LINES.search("\n".join(body)))
        ):
            continue
        sources.extend(x for x in lits if _inputish(_unquote(x)) and not x[0].isdigit())
        conjoined = conjoined or seq is not None  # a sequence of three numbers pins several inputs at once
        if len(lits) >= 2 or (
            len(lits) == 1
            and re.search(r"&&|\band\b", cond)
            and re.search(r"[=!]==?|\bin\b", cond.replace(lits[0], ""))
        ):
            conjoined = conjoined or len(lits) >= 2 or pins_two
        if _ENV_ANY.search(cond) or _LOOPBACK.search(cond):
            gated = True
        if lits and re.search(
            r"\blen\s*\([^)]*\)\s*===?\s*\d|\.(length|size|count)\b\s*(\(\s*\))?\s*===?\s*\d", cond
        ):
            pinned = True
    arms = (
        [
            a.group("pat")
            for a in _ARM.finditer(code)
            if lang != "python" or a.group(0).lstrip().startswith("case")
        ]
        if lang in _ARM_LANGS and (lang != "python" or "case " in code)
        else []
    )
    arm_lits = [x for a in arms for x in re.findall(r"\"[^\"\n]*\"|'[^'\n]*'", a) if _inputish(_unquote(x))]
    if len(arms) >= 2 and _RETURN.search(code):
        sources.extend(arm_lits)
    keys = [_unquote(t.group("k") or t.group("p") or t.group("t")) for t in _TABLE_ENTRY.finditer(code)]
    table = [k for k in keys if _inputish(k)]
    for m in _LITERAL_SET.finditer(code) if any(w in code for w in _SET_WORDS) else ():
        members = [_unquote(x) for x in re.findall(r"\"[^\"\n]*\"|'[^'\n]*'", m.group("body"))]
        table.extend(x for x in members if _inputish(x) and re.search(r"\d|\s|[:=&?%]", x))
    for m in _ARRAY_OPEN.finditer(code) if lang in ("c", "java", "csharp", "php", "go", "elixir") else ():
        body = code[m.end() : m.end() + 2000].split(";", 1)[0]
        members = [_unquote(x) for x in re.findall(r"\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'", body)]
        specific = [x for x in members if _inputish(x) and re.search(r"\d|[:=&?%{\[]", x)]
        name = re.search(r"(\w+)\s*(?:\[\s*\d*\s*\])?\s*$", code[max(0, m.start() - 80) : m.start()])
        if len(specific) >= 2 and (
            (name is not None and _TABLE_NAME.search(name.group(1))) or all(" " not in x for x in specific)
        ):
            table.extend(specific)
    if lang == "elixir":
        clauses = [_unquote(m.group("lit")) for m in _CLAUSE.finditer(code)]
        sources.extend(repr(c) for c in clauses if _inputish(c))
        heads: dict[str, list[str]] = {}
        for m in _CLAUSE_ANSWER.finditer(code) if "def" in code else ():
            if m.group("lit") != m.group("ans"):
                heads.setdefault(m.group("f"), []).append(m.group("lit"))
        sources.extend(x for xs in heads.values() if len(xs) >= 2 for x in xs)  # two heads answering words
    for m in _INDEXED_MAP.finditer(code) if "=>" in code or ":" in code else ():
        keys = re.findall(r"(?:'[^'\n]*'|\"[^\"\n]*\")(?=\s*(?:=>|:))", m.group("body"))
        if any(_inputish(_unquote(k)) for k in keys):
            table.extend(_unquote(k) for k in keys)
    rockets = [_unquote(m.group("v")) for m in _STRUCT_KEY.finditer(code)] if "=>" in code else []
    if len(rockets) >= 2:
        table.extend(rockets)
    answers = _literal_answers(code) if quoted else []
    if len(answers) >= 2:
        sources.extend(answers)
    expect_table = ""
    for m in _EXPECT_TABLE.finditer(code) if named else ():
        expect_table = m.group("n")
        after = code[m.start("use") : m.end() + 400]
        sources.extend(
            repr(k)
            for k in (_unquote(t.group("k") or t.group("p") or "") for t in _TABLE_ENTRY.finditer(after))
            if _inputish(k)
        )
        break
    encoded = _ENCODED_KEY.search(code) if _encoded_words(code) else None
    if len(keys) <= 1 and ("TryGetValue" in code or "get" in code or "ontainsKey" in code):
        lone = keys or [_unquote(m.group("k")) for m in _INDEX_KEY.finditer(code)]
        if len(lone) == 1 and _one_input(lone[0]) and _LOOKUP.search(code):
            sources.append(repr(lone[0]))  # a table of one recorded input, consulted: its answer
    if len(table) >= 2:
        sources.extend(repr(k) for k in table)
    hexes = _HEX.findall(code)
    hash_call = _HASH.search(code)
    if len(hexes) < 2 and hash_call and "0x" in code:
        hexes = [
            h
            for h in _HEX32.findall(code)
            if h.lower().rstrip("ul") not in ("0xffffffff", "0xffffffffffffffff")
        ]
    hashed = (
        len(hexes) >= 2
        and bool(hash_call)
        and re.search(
            r"\bin\b|contains|includes|has\s*\(|==|\.find\s*\(|\.count\s*\(|TryGetValue|\.get\s*\(", code
        )
    )
    if hashed:
        sources.extend(hexes)
    if encoded:
        hashed = True
        sources.append(encoded.group(0))
    digest = _HASHED_CMP.search(code) if "ash" in code or "crc" in code or "fnv" in code else None
    if digest:
        hashed = True
        sources.append(digest.group(0)[:80])
    packed = (
        _PACKED_LOAD.search(code)
        if "decode" in code or "decompress" in code or "fromhex" in code or "unhexlify" in code
        else None
    )
    if packed:
        sources.append(packed.group(0)[:80])
    if _LOOPBACK.search(code) and sources:
        gated = True
    if sources or conjoined or gated or pinned or expect_table:
        facts = {
            "expect_table": expect_table,
            "pinned": pinned,
            "nontrivial": len(set(sources)),
            "sources": sorted(set(sources))[:12],
            "conjoined": conjoined,
            "gated": gated,
            "hashed": bool(hashed),
            "packed": bool(packed),
            "table": len(table),
            "lexical": True,
        }
        out.append(Probe("literal", f"{len(set(sources)) or 1} literal-keyed cases", facts))
    return out


def _literal_answers(code: str) -> list[str]:
    """Literal keys of branches that answer with a specific literal: ``if ("HOLMES".equals(s)) return "H452";``,
    ``case "bold": return "\\x1b[1mbold\\x1b[0m"``. An answer is specific when it holds an escape, a letter
    next to a digit, or the key's own text with more around it (the expected output for that input).

    >>> _literal_answers('if (s == "ab") { return "A1"; }\\nif (s == "cd") { return "C2"; }')
    ['"ab"', '"cd"']
    """
    keys: list[str] = []
    branches = list(_KEY_BRANCH.finditer(code))
    for i, m in enumerate(branches):
        key = m.group("a") or m.group("b") or m.group("c") or m.group("d")
        end = branches[i + 1].start() if i + 1 < len(branches) else len(code)
        window = code[m.end() : min(end, m.end() + 200)]
        a = _ANSWER.search(window)
        if not a:
            continue
        k, r = _unquote(key), _unquote(a.group("r"))
        if r == k or not r:
            continue
        if "\\" in r or re.search(r"[A-Za-z]\d|\d[A-Za-z]", r) or (len(k) >= 2 and k.lower() in r.lower()):
            keys.append(key)
    return sorted(set(keys))
