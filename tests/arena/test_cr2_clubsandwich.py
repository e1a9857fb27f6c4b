"""CR2 standard errors and Satterthwaite degrees of freedom against R's clubSandwich.

Golden values from R 4.2.2 with clubSandwich 0.5.8 (Debian's r-cran-clubsandwich), on 144
battles of 4 models over 12 prompts (12 each; ties; prompt effects), given below as digit
strings: model a, model b, outcome code (y = code / 2), prior weight, a feature (digit - 4)
and the prompt (a letter). The working variances p (1 - p) / w differ within each prompt,
so these values tell clubSandwich's adjustment from the symmetric ``(I - H_gg)^{-1/2}``
(which is 1e-3 to 5e-3 off in the standard errors here). The R session::

    library(clubSandwich)
    digits <- function(s) as.integer(strsplit(s, "")[[1]])
    a <- digits(A); b <- digits(B); y <- digits(Y) / 2; w <- digits(W)
    f <- digits(F) - 4; cl <- strsplit(C, "")[[1]]   # the strings A..C below
    n <- length(y)
    X <- matrix(0, n, 4)
    X[cbind(1:n, a + 1)] <- 1
    X[cbind(1:n, b + 1)] <- -1
    X <- X[, -1]                                      # model 0 is the anchor
    centre <- rbind(diag(4) - 1/4)[, -1]              # centred scores of models 0..3
    ctl <- glm.control(epsilon = 1e-14, maxit = 100)
    show <- function(fit, L) {
      V <- vcovCR(fit, cluster = cl, type = "CR2")
      ct <- coef_test(fit, vcov = V, test = "Satterthwaite")
      lc <- linear_contrast(fit, vcov = V, contrasts = L, test = "Satterthwaite")
      print(format(list(coef(fit), ct$SE, ct$df_Satt, lc$SE, lc$df), digits = 15))
    }
    show(glm(y ~ 0 + X, family = binomial, control = ctl), centre)               # PLAIN
    show(glm(y ~ 0 + X, family = binomial, weights = w, control = ctl), centre)  # WEIGHTED
    show(glm(y ~ 0 + X + f, family = binomial, control = ctl), cbind(centre, 0)) # FEATURE

(``glm`` warns about non-integer successes, for the ties.) The tight ``epsilon`` matters:
clubSandwich's bread is ``summary(fit)$cov.unscaled``, from the working weights of glm's
last iteration, which lag the fitted ``p`` by one step; with the default ``epsilon`` the
standard errors move in the eighth digit.
"""

from __future__ import annotations

import numpy as np
import pytest

from evalsig.arena import battles, bradley_terry, compress
from evalsig.arena.fit import fit

A = (
    "211202133311132131001021033222301130102330103130312013210112000221130021032000120010"
    "102223300211030321123032131223123233001131310003023210310030"
)
B = (
    "002131301003011223133132322031112221310111221303133322133320133010011100200131201301"
    "020102012300101103011201220112302002330323221331331033033313"
)
Y = (
    "002020222202200200200221220010200102102100000202020122020000220012002200200011022202"
    "020222021200201002002202200020221202022220220010202021022200"
)
W = (
    "311113131311111311131333331131111113111133131331111133131111333311311111331131111131"
    "313111111331311111113111111133111111133331111333111313111111"
)
F = (
    "132221276544713086211672500710735621646346124308088048682103534342245413420516660648"
    "732420020286184348214557141785138102485035404087357406265488"
)
C = "".join(letter * 12 for letter in "abcdefghijkl")

# R output: coef(fit), ct$SE, ct$df_Satt, lc$SE, lc$df
GOLDEN = {
    "plain": (
        [-0.465236816737410, -0.862464631754790, -0.866418222334997],
        [0.344466926128597, 0.341802588891805, 0.301819427237073],
        [9.65610640676094, 10.00513490675781, 10.15195234961354],
        [0.206974489374303, 0.158271736409472, 0.234517060034328, 0.179836173711960],
        [9.51481765510024, 10.42271144414180, 8.96063302838362, 9.49740003371791],
    ),
    "weighted": (
        [-0.467311699709798, -0.961580925354738, -0.806711766886336],
        [0.461665274379751, 0.395651531670116, 0.296704460867209],
        [9.42486789580867, 10.32235869920038, 9.62316636608485],
        [0.237752846143077, 0.242468234371328, 0.277913627493921, 0.197609688294609],
        [9.08513134474790, 10.02937868842115, 9.07273134626059, 9.41670668469816],
    ),
    "feature": (
        [-0.4455941518665735, -0.8863055859781562, -0.8608962122873467, 0.0926279282789895],
        [0.373213695270094, 0.351942578686643, 0.301710390432426, 0.081813486283655],
        [9.62214872307104, 10.02418175920691, 10.18862231113103, 9.61967958941022],
        [0.214371762432148, 0.182521013750828, 0.244430340239454, 0.177044701680441],
        [9.54328625122857, 10.35141374779372, 9.02184267987925, 9.51539501524777],
    ),
}
NAMES = np.array(["m0", "m1", "m2", "m3"], dtype=object)


def _digits(s: str) -> np.ndarray:
    return np.array([int(c) for c in s])


def _data(case: str):
    a, b, y = _digits(A), _digits(B), _digits(Y) / 2
    clusters = np.array([ord(c) - ord("a") for c in C])
    options: dict = {}
    if case == "weighted":
        options["weights"] = _digits(W).astype(float)
    if case == "feature":
        options["features"] = (_digits(F) - 4.0)[:, None]
        options["feature_names"] = ["f"]
    return battles(NAMES[a], NAMES[b], y, cluster=clusters, **options)


@pytest.mark.parametrize("case", ["plain", "weighted", "feature"])
def test_cr2_and_satterthwaite_df_match_clubsandwich(case):
    coef, se, df, centred_se, centred_df = GOLDEN[case]
    k = len(coef)
    centre = np.delete(np.eye(4) - 0.25, 0, axis=1).T  # free scores -> centred, 3 x 4
    centre = np.vstack([centre, np.zeros((k - 3, 4))])
    rows = compress(_data(case))
    out = fit(rows, ties="half", anchor=0, correction="CR2",
              contrasts=np.column_stack([np.eye(k), centre]))  # fmt: skip
    assert out.correction == "CR2"
    assert out.df is not None
    cov = out.cov_sandwich[1:, 1:]
    np.testing.assert_allclose(out.params[1:], coef, rtol=1e-10)
    np.testing.assert_allclose(np.sqrt(np.diag(cov)), se, rtol=1e-9)
    np.testing.assert_allclose(out.df[:k], df, rtol=1e-9)
    np.testing.assert_allclose(np.sqrt(np.diag(centre.T @ cov @ centre)), centred_se, rtol=1e-9)
    np.testing.assert_allclose(out.df[k:], centred_df, rtol=1e-9)


@pytest.mark.parametrize("case", ["plain", "feature"])
def test_bradley_terry_reports_clubsandwich_se_and_df_of_the_centred_scores(case):
    """The scores ``bradley_terry`` reports (sum to zero, logit scale) are the centred
    contrasts above: their ``se`` and ``df`` are ``linear_contrast``'s."""
    _coef, se, df, centred_se, centred_df = GOLDEN[case]
    result = bradley_terry(_data(case), scale="logit", rng=0, n_draws=1000)
    assert result.cluster_correction == "CR2"
    assert result.df is not None
    order = [result.models.index(name) for name in NAMES]
    np.testing.assert_allclose(result.se[order], centred_se, rtol=1e-9)
    np.testing.assert_allclose(result.df[order], centred_df, rtol=1e-9)
    if case == "feature":
        (covariate,) = result.covariates
        assert covariate.se == pytest.approx(se[-1], rel=1e-9)
        assert covariate.df == pytest.approx(df[-1], rel=1e-9)
