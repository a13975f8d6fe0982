from memokit.lru import LRUCache


def test_get_marks_entry_as_recently_used():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert cache.get("a") == 1
    assert cache.get("b") is None


def test_hot_key_survives_many_inserts():
    cache = LRUCache(3)
    cache.put("hot", 0)
    for i in range(10):
        cache.put(i, i)
        assert cache.get("hot") == 0
