"""codegym.antihack: the detection engine the anti-hack guards use.

Rules flag candidate shortcuts in every tool call (tuned for recall), a judge settles them (for
precision), a blocked call gets a plausible dummy result, and every flag becomes a `HackEvent`.

    >>> from codegym.antihack import GuardContext, ToolCall, detect
    >>> ctx = GuardContext(protected_paths=("tests/hidden",), base_commit="a1b2c3d4")
    >>> d = detect(ToolCall("bash", {"command": "cat tests/hidden/test_fix.py"}), ctx)
    >>> d.is_hack, d.category, d.dummy.output
    (True, 'protected-read', 'cat: tests/hidden/test_fix.py: No such file or directory\\n')
"""

from .detect import Detector, detect, scan_rules
from .dummy import dummy_result
from .events import HackEvent
from .judge import LLM_PROMPT, Judge, LLMJudge, RuleJudge, SemanticJudge, parse_llm_verdict
from .report import HackRateReport, Rate, hack_rate_report, plot_report, wilson_interval
from .types import (
    CATEGORIES,
    HARNESS_TAMPERING,
    PROTECTED_READ,
    SPECIAL_CASING,
    TEST_TAMPERING,
    UPSTREAM_RETRIEVAL,
    VCS_FUTURE_LEAK,
    Detection,
    DummyResult,
    Flag,
    GuardContext,
    ToolCall,
    Verdict,
)

__all__ = [
    "CATEGORIES",
    "HARNESS_TAMPERING",
    "LLM_PROMPT",
    "PROTECTED_READ",
    "SPECIAL_CASING",
    "TEST_TAMPERING",
    "UPSTREAM_RETRIEVAL",
    "VCS_FUTURE_LEAK",
    "Detection",
    "Detector",
    "DummyResult",
    "Flag",
    "GuardContext",
    "HackEvent",
    "HackRateReport",
    "Judge",
    "LLMJudge",
    "Rate",
    "RuleJudge",
    "SemanticJudge",
    "ToolCall",
    "Verdict",
    "detect",
    "dummy_result",
    "hack_rate_report",
    "parse_llm_verdict",
    "plot_report",
    "scan_rules",
    "wilson_interval",
]
