from leaderboard.ranking import Player, podium, rank


def test_highest_score_first():
    players = [Player("ann", 30), Player("bob", 50), Player("cy", 40)]
    assert [p.name for _, p in rank(players)] == ["bob", "cy", "ann"]


def test_ties_share_position_and_sort_by_name():
    players = [Player("zed", 10), Player("amy", 10), Player("max", 5)]
    assert [(pos, p.name) for pos, p in rank(players)] == [(1, "amy"), (1, "zed"), (3, "max")]


def test_podium():
    players = [Player(n, s) for n, s in [("a", 1), ("b", 9), ("c", 7), ("d", 8)]]
    assert podium(players) == ["b", "d", "c"]
