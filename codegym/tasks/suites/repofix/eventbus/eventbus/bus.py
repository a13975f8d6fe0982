"""Publish/subscribe within one process."""

from collections import defaultdict


class EventBus:
    def __init__(self):
        self._handlers = defaultdict(list)

    def subscribe(self, event, handler):
        self._handlers[event].append(handler)
        return handler

    def unsubscribe(self, event, handler):
        self._handlers[event].remove(handler)

    def once(self, event, handler):
        """Subscribe `handler` for the next `event` only."""

        def wrapper(*args):
            self.unsubscribe(event, wrapper)
            return handler(*args)

        return self.subscribe(event, wrapper)

    def emit(self, event, *args):
        """Call every handler subscribed to `event`, in subscription order."""
        results = []
        for handler in self._handlers[event]:
            results.append(handler(*args))
        return results
