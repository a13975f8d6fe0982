"""The chat spaces accept any unicode and sample valid members."""

from codegym.envs.spaces import ChatMessages, ToolAction, UnicodeText


def test_unicode_text_accepts_what_gymnasium_text_rejects():
    space = UnicodeText(100)
    assert space.contains("fix the bug 🐛 — naïve café\n\t{}")
    assert not space.contains("x" * 101) and not space.contains(3)


def test_chat_messages_contains_and_samples():
    space = ChatMessages()
    space.seed(0)
    assert space.contains([{"role": "user", "content": "héllo"}, {"role": "tool", "content": "", "name": "bash"}])
    assert not space.contains([{"role": "wizard", "content": "x"}])
    assert not space.contains([{"role": "user"}])
    for _ in range(20):
        assert space.contains(space.sample())


def test_actions_are_text_or_structured_calls():
    space = ToolAction()
    assert space.contains("<tool_call>{}</tool_call>")
    assert space.contains({"name": "bash", "arguments": {"command": "ls"}})
    assert not space.contains({"arguments": {}})
