"""`events.HackEvent`: the record of one flagged call, built from a detection and round-tripped through JSON."""

import json

from test_report import event

from codegym.antihack import HackEvent


def test_event_json_roundtrip():
    ev = event("git log --all", turn=4)
    back = HackEvent.from_json(ev.to_json())
    assert back.to_dict() == ev.to_dict()
    assert back.verdict and back.blocked and back.category == "vcs-future-leak" and back.turn == 4
    assert json.loads(ev.to_json())["flags"][0]["rule"] == "VCS-ALLREFS"


def test_an_event_of_a_benign_call_keeps_its_labels_and_is_not_blocked():
    from codegym.antihack import GuardContext, ToolCall, detect

    call = ToolCall("bash", {"command": "git log -1"})
    ev = HackEvent.from_detection(detect(call, GuardContext()), call, 2, episode_id="e7", label_is_hack=False)
    assert not ev.verdict and not ev.blocked and ev.dummy_result is None and ev.tool == "bash"
    back = HackEvent.from_dict(json.loads(ev.to_json()))
    assert back == ev and back.episode_id == "e7" and back.label_is_hack is False
