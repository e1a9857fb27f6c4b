"""Bradley-Terry on 1,000,000 battles over 200 models: evalsig beside a plain fit.

The reference fits the same likelihood the way arena notebooks do: every battle a row,
``scipy.optimize.minimize`` (L-BFGS-B, analytic gradient, vectorised numpy) on the
uncompressed battles, one model's score fixed at 0. Its intervals come from a
FastChat-style bootstrap: resample the battle list, refit, 20 rounds. evalsig compresses
the battles (at most 3 * 200 * 199 rows), fits by Newton's method and gives sandwich
intervals, simultaneous rank intervals and tie groups in one call; its bootstrap reweighs
the compressed rows with one multinomial draw per resample. Printed: the times, the
largest score difference between the two fits, and the ratios.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from _util import best_time, row
from evalsig.arena import battles, bradley_terry

N_BATTLES = 1_000_000
N_MODELS = 200
ROUNDS = 20


def plain_fit(a: np.ndarray, b: np.ndarray, y: np.ndarray, m: int) -> np.ndarray:
    """Maximum likelihood on every battle (model 0 fixed at 0), scipy's L-BFGS-B."""

    def objective(free: np.ndarray) -> tuple[float, np.ndarray]:
        s = np.concatenate([[0.0], free])
        d = s[a] - s[b]
        p = 1.0 / (1.0 + np.exp(-d))
        nll = -float(np.sum(y * -np.logaddexp(0, -d) + (1 - y) * -np.logaddexp(0, d)))
        r = y - p
        grad = -(np.bincount(a, r, m) - np.bincount(b, r, m))
        return nll, grad[1:]

    fitted = optimize.minimize(
        objective, np.zeros(m - 1), jac=True, method="L-BFGS-B", options={"gtol": 1e-8}
    )
    return np.concatenate([[0.0], fitted.x])


def fastchat_bootstrap(a: np.ndarray, b: np.ndarray, y: np.ndarray, m: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    out = []
    for _ in range(ROUNDS):
        idx = rng.integers(0, len(y), len(y))
        out.append(plain_fit(a[idx], b[idx], y[idx], m))
    return np.array(out)


def main() -> dict[str, float]:
    rng = np.random.default_rng(0)
    strength = rng.normal(0, 1, N_MODELS)
    a = rng.integers(0, N_MODELS, N_BATTLES)
    b = (a + rng.integers(1, N_MODELS, N_BATTLES)) % N_MODELS
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    u = rng.random(N_BATTLES)
    y = np.where(u < 0.1, 0.5, (u < 0.1 + 0.9 * p).astype(float))
    names = np.array([f"model-{i:03d}" for i in range(N_MODELS)], dtype=object)
    print(f"Bradley-Terry: {N_BATTLES:,} battles over {N_MODELS} models (10% ties)")
    seconds, data = best_time(lambda: battles(names[a], names[b], y), repeat=1)
    print(row("evalsig battles(): names to codes, validation", seconds))
    ours, result = best_time(lambda: bradley_terry(data, scale="logit", anchor=names[0], rng=0))
    theirs, reference = best_time(lambda: plain_fit(a, b, y, N_MODELS), repeat=1)
    gap = float(np.max(np.abs(result.score[np.argsort(result.models)] - reference)))
    print(row("evalsig bradley_terry: fit, sandwich, rank intervals", ours,
              f"{result.n_rows:,} compressed rows"))  # fmt: skip
    print(row("scipy.optimize.minimize on every battle (fit only)", theirs,
              f"max |score diff| {gap:.1e}"))  # fmt: skip
    ratios = {"fit": theirs / ours}
    print(f"  -> {theirs / ours:,.1f}x as fast, with intervals and ranks included")
    boot, _ = best_time(
        lambda: bradley_terry(data, scale="logit", anchor=names[0], interval="bootstrap",
                              n_resamples=100, rng=0),
        repeat=1,
    )  # fmt: skip
    fastchat, _ = best_time(lambda: fastchat_bootstrap(a, b, y, N_MODELS), repeat=1)
    print(row("evalsig bootstrap, 100 resamples of compressed rows", boot))
    print(row(f"FastChat-style bootstrap, {ROUNDS} refits on resampled battles", fastchat))
    per_round = (fastchat / ROUNDS) / (boot / 100)
    ratios["bootstrap per resample"] = per_round
    ratios["sandwich vs bootstrap"] = fastchat / ours
    print(f"  -> per resample {per_round:,.1f}x as fast; the sandwich replaces the "
          f"{ROUNDS}-round bootstrap {fastchat / ours:,.0f}x as fast")  # fmt: skip
    return ratios


if __name__ == "__main__":
    main()
