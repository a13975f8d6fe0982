from leaderboard.ranking import Player, rank


def test_single_player():
    assert rank([Player("ann", 3)]) == [(1, Player("ann", 3))]


def test_empty():
    assert rank([]) == []
