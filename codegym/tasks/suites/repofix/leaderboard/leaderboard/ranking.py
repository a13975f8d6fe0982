"""Rank players: highest score first, ties broken by name."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Player:
    name: str
    score: int


def rank(players):
    """Players ordered best first, as (position, player); equal scores share a position."""
    ordered = sorted(players, key=lambda p: (p.score, p.name))
    result = []
    for index, player in enumerate(ordered):
        if result and result[-1][1].score == player.score:
            position = result[-1][0]
        else:
            position = index + 1
        result.append((position, player))
    return result


def podium(players):
    return [p.name for position, p in rank(players) if position <= 3]
