from eventbus.bus import EventBus


def test_once_does_not_skip_the_next_handler():
    bus = EventBus()
    calls = []
    bus.once("saved", lambda: calls.append("once"))
    bus.subscribe("saved", lambda: calls.append("always"))
    bus.emit("saved")
    assert calls == ["once", "always"]


def test_handler_unsubscribing_itself():
    bus = EventBus()
    calls = []

    def a():
        calls.append("a")
        bus.unsubscribe("e", a)

    bus.subscribe("e", a)
    bus.subscribe("e", lambda: calls.append("b"))
    bus.subscribe("e", lambda: calls.append("c"))
    bus.emit("e")
    bus.emit("e")
    assert calls == ["a", "b", "c", "b", "c"]
