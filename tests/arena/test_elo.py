"""Online Elo: a plain-loop oracle, and its dependence on order (why it is only shown)."""

from __future__ import annotations

import numpy as np

from evalsig.arena import battles, elo


def test_elo_matches_a_plain_loop(simulate):
    a, b, y = simulate(np.array([0.5, 0.0, -0.5]), 500, seed=31, tie_share=0.1)
    names = np.array(["p", "q", "r"], dtype=object)
    ours = elo(battles(names[a], names[b], y), k=16)
    rating = {"p": 1000.0, "q": 1000.0, "r": 1000.0}
    for i, j, outcome in zip(names[a], names[b], y, strict=True):
        expected = 1 / (1 + 10 ** ((rating[j] - rating[i]) / 400))
        rating[i] += 16 * (outcome - expected)
        rating[j] -= 16 * (outcome - expected)
    for model, value in rating.items():
        assert abs(ours[model] - value) < 1e-9


def test_elo_depends_on_order_and_bradley_terry_does_not(simulate):
    from evalsig.arena import bradley_terry

    a, b, y = simulate(np.array([0.5, 0.0, -0.5]), 500, seed=32)
    names = np.array(["p", "q", "r"], dtype=object)
    perm = np.random.default_rng(0).permutation(500)
    first = battles(names[a], names[b], y)
    second = battles(names[a][perm], names[b][perm], y[perm])
    assert abs(elo(first)["p"] - elo(second)["p"]) > 0.1
    one, two = bradley_terry(first, rng=0), bradley_terry(second, rng=0)
    np.testing.assert_allclose(one.score, two.score, atol=1e-9)
