"""ToolCall: the env's call type, shared by envs, agents, trainer and the anti-hack guards."""

import json

import pytest

from codegym.toolcall import ToolCall


def test_round_trips_through_json_and_is_the_type_the_detector_reads():
    from codegym.antihack import ToolCall as FromAntihack
    from codegym.antihack.types import ToolCall as FromTypes

    call = ToolCall("str_replace", {"path": "a.py", "old_str": "x", "new_str": "y"})
    assert ToolCall.from_dict(json.loads(json.dumps(call.to_dict()))) == call
    assert FromAntihack is ToolCall and FromTypes is ToolCall


def test_missing_arguments_are_empty_and_a_missing_name_is_an_error():
    assert ToolCall.from_dict({"name": "submit", "arguments": None}).arguments == {}
    with pytest.raises(KeyError, match="name"):
        ToolCall.from_dict({"arguments": {}})
