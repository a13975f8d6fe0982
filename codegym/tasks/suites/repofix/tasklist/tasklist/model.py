"""To-do items and the list that holds them."""

from dataclasses import dataclass, field


@dataclass
class Item:
    title: str
    tags: list = field(default_factory=list)
    done: bool = False


class TaskList:
    def __init__(self):
        self.items = []

    def add(self, title, tags=[]):
        """Add an item; `tags` may be extended later with `tag()`."""
        item = Item(title, tags)
        self.items.append(item)
        return item

    def tag(self, title, tag):
        for item in self.items:
            if item.title == title:
                item.tags.append(tag)
                return item
        raise KeyError(title)

    def with_tag(self, tag):
        return [item.title for item in self.items if tag in item.tags]

    def complete(self, title):
        for item in self.items:
            if item.title == title:
                item.done = True
                return item
        raise KeyError(title)
