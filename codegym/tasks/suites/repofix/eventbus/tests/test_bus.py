from eventbus.bus import EventBus


def test_emit_calls_handlers_in_order():
    bus = EventBus()
    bus.subscribe("x", lambda v: v + 1)
    bus.subscribe("x", lambda v: v * 10)
    assert bus.emit("x", 2) == [3, 20]


def test_unsubscribe():
    bus = EventBus()
    handler = bus.subscribe("x", lambda: "hi")
    bus.unsubscribe("x", handler)
    assert bus.emit("x") == []


def test_once_alone():
    bus = EventBus()
    bus.once("x", lambda: "first")
    assert bus.emit("x") == ["first"]
    assert bus.emit("x") == []
