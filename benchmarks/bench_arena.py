"""Bradley-Terry on 1,000,000 battles over 200 models: evalsig beside a plain fit.

The reference fits the same likelihood the way arena notebooks do: every battle a row,
``scipy.optimize.minimize`` (L-BFGS-B, analytic gradient, vectorised numpy) on the
uncompressed battles, one model's score fixed at 0. Its intervals come from a
FastChat-style bootstrap: resample the battle list, refit, 20 rounds. evalsig compresses
the battles (at most 3 * 200 * 199 rows), fits by Newton's method and gives sandwich
intervals, simultaneous rank intervals and tie groups in one call; its bootstrap reweighs
the compressed rows with one multinomial draw per resample. Printed: the times, the
largest score difference between the two fits, and the ratios beside the targets (the
fit with its intervals and ranks in seconds; faster than the plain fit and than the
FastChat bootstrap). A second run clusters the battles by 200 prompts and shows which
cluster-robust covariance (CR2 or CR1) the size allows, and its cost.

Then the calibration by simulation (:func:`calibration`): 4 models, 480 battles on G
prompts, each model shifted by N(0, 1) on each prompt; the share of 95% intervals of the
strength differences that hold the truth (the Bradley-Terry fit to the marginal win
probabilities), for battles treated as independent, CR1, CR2 and the bootstrap over
prompts, beside the 99% binomial band of 0.95.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from _util import best_time, row
from evalsig.arena import battles, bradley_terry, compress
from evalsig.arena.fit import fit

N_BATTLES = 1_000_000
N_MODELS = 200
ROUNDS = 20
N_PROMPTS = 200
TARGET_SECONDS = 10.0
"""Target: 1M battles over 200 models, fit + intervals + ranks, in seconds."""


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
    print(f"  -> {theirs / ours:,.1f}x as fast, with intervals and ranks included "
          f"(target: > 1x); {ours:.2f} s (target: < {TARGET_SECONDS:g} s)")  # fmt: skip
    prompts = rng.integers(0, N_PROMPTS, N_BATTLES)
    clustered = battles(names[a], names[b], y, cluster=prompts)
    for correction in ("CR2", "CR1"):
        seconds, fitted = best_time(
            lambda c=correction: bradley_terry(
                clustered, scale="logit", anchor=names[0], rng=0, variant=c
            ),
            repeat=1,
        )
        label = f"evalsig bradley_terry, {N_PROMPTS} prompts, asked {correction}"
        print(row(label, seconds, f"used {fitted.cluster_correction}, {fitted.n_rows:,} rows, "
                  f"ranks: {fitted.rank_null}"))  # fmt: skip
        ratios[f"clustered {correction} seconds"] = seconds
    boot, _ = best_time(
        lambda: bradley_terry(data, scale="logit", anchor=names[0], method="bootstrap",
                              n_resamples=100, rng=0),
        repeat=1,
    )  # fmt: skip
    fastchat, _ = best_time(lambda: fastchat_bootstrap(a, b, y, N_MODELS), repeat=1)
    print(row("evalsig bootstrap, 100 resamples of compressed rows", boot))
    print(row(f"FastChat-style bootstrap, {ROUNDS} refits on resampled battles", fastchat))
    per_round = (fastchat / ROUNDS) / (boot / 100)
    ratios["bootstrap per resample"] = per_round
    ratios["sandwich vs bootstrap"] = fastchat / ours
    print(f"  -> per resample {per_round:,.1f}x as fast (target: > 1x); the sandwich "
          f"replaces the {ROUNDS}-round bootstrap {fastchat / ours:,.0f}x as fast")  # fmt: skip
    ratios.update(calibration())
    return ratios


CALIBRATION_STRENGTHS = np.array([0.6, 0.2, 0.0, -0.5])
CALIBRATION_REPS = 100


def _pseudo_truth(names: np.ndarray) -> np.ndarray:
    """Bradley-Terry fitted to ``E sigmoid(s_a - s_b + u_a - u_b)``, ``u ~ N(0, 1)``."""
    s, m = CALIBRATION_STRENGTHS, len(CALIBRATION_STRENGTHS)
    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    a, b = np.array([(i, j) for i in range(m) for j in range(m) if i != j]).T
    p = (w / (1 + np.exp(-((s[a] - s[b])[:, None] + np.sqrt(2) * x)))).sum(axis=1)
    return np.asarray(fit(compress(battles(names[a], names[b], p)), ties="half",
                          anchor=m - 1).params[: m - 1])  # fmt: skip


def calibration() -> dict[str, float]:
    """Coverage of the 95% intervals with clustered battles, by method and prompts."""
    from scipy import stats

    s, m = CALIBRATION_STRENGTHS, len(CALIBRATION_STRENGTHS)
    names = np.array([f"m{i}" for i in range(m)], dtype=object)
    truth = _pseudo_truth(names)
    low, high = stats.binom.ppf([0.005, 0.995], CALIBRATION_REPS * (m - 1), 0.95)
    methods = {
        "independent": {"clusters": False},
        "CR1": {"variant": "CR1"},
        "CR2": {"variant": "CR2"},
        "bootstrap": {"method": "bootstrap", "n_resamples": 200},
    }
    print(f"Calibration: 95% intervals of {m - 1} strength differences, {CALIBRATION_REPS} "
          f"data sets of 480 battles (target: {low / (m - 1) / CALIBRATION_REPS:.3f}-"
          f"{high / (m - 1) / CALIBRATION_REPS:.3f}, the 99% band of 0.95 for the pooled "
          "count, which ignores the correlation between differences)")  # fmt: skip
    print(f"  {'prompts':<10}" + "".join(f"{k:>14}" for k in methods))
    shares: dict[str, float] = {}
    for n_prompts in (6, 12, 48):
        hits = dict.fromkeys(methods, 0)
        for rep in range(CALIBRATION_REPS):
            rng = np.random.default_rng(rep)
            prompts = np.repeat(np.arange(n_prompts), 480 // n_prompts)
            a = rng.integers(0, m, len(prompts))
            b = (a + rng.integers(1, m, len(prompts))) % m
            u = rng.normal(0, 1, (n_prompts, m))
            d = s[a] - s[b] + u[prompts, a] - u[prompts, b]
            y = (rng.random(len(prompts)) < 1 / (1 + np.exp(-d))) * 1.0
            for key, options in methods.items():
                kw = {k: v for k, v in options.items() if k != "clusters"}
                data = battles(names[a], names[b], y,
                               cluster=None if "clusters" in options else prompts)  # fmt: skip
                r = bradley_terry(data, scale="logit", anchor=f"m{m - 1}", rng=rep,
                                  n_draws=1000, **kw)  # fmt: skip
                hits[key] += sum(
                    r[f"m{i}"]["ci"]["low"] <= truth[i] <= r[f"m{i}"]["ci"]["high"]
                    for i in range(m - 1)
                )
        total = CALIBRATION_REPS * (m - 1)
        print(f"  {n_prompts:<10}" + "".join(f"{hits[k] / total:>14.3f}" for k in methods))
        shares.update(
            {f"coverage {k}, {n_prompts} prompts": float(hits[k] / total) for k in methods}
        )
    return shares


if __name__ == "__main__":
    main()
