from tasklist.model import TaskList


def test_tagging_one_item_leaves_others_alone():
    todo = TaskList()
    todo.add("a")
    todo.add("b")
    todo.tag("a", "urgent")
    assert todo.with_tag("urgent") == ["a"]


def test_separate_lists_do_not_share_tags():
    first, second = TaskList(), TaskList()
    first.add("x")
    first.tag("x", "home")
    assert second.add("y").tags == []


def test_caller_list_is_not_modified():
    tags = ["work"]
    todo = TaskList()
    todo.add("report", tags=tags)
    todo.tag("report", "q3")
    assert tags == ["work"]
