"""A least-recently-used cache."""

from collections import OrderedDict


class LRUCache:
    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._data = OrderedDict()

    def get(self, key, default=None):
        """The cached value (which becomes the most recently used), or `default`."""
        if key not in self._data:
            return default
        return self._data[key]

    def put(self, key, value):
        """Store `value`; evict the least recently used entry when full."""
        if key in self._data:
            self._data.move_to_end(key)
        self._data[key] = value
        if len(self._data) > self.capacity:
            self._data.popitem(last=False)

    def __len__(self):
        return len(self._data)

    def keys(self):
        return list(self._data)
