import pytest

from tasklist.model import TaskList


def test_add_with_tags():
    todo = TaskList()
    todo.add("write docs", tags=["docs"])
    assert todo.with_tag("docs") == ["write docs"]


def test_complete():
    todo = TaskList()
    todo.add("ship")
    assert todo.complete("ship").done
    with pytest.raises(KeyError):
        todo.complete("nothing")
