"""The lasso behind the surrogate attribution, checked against numpy ground truth: planted sparse
linear data, ordinary least squares at a vanishing penalty, and the optimality (KKT) conditions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentbisect.bisect.causal.lasso import fit_lasso, lambda_grid, lasso_cv, spearman


def masks(n: int, p: int, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).random((n, p)) < 0.5).astype(np.float64)


def kkt_violation(x: np.ndarray, y: np.ndarray, w: np.ndarray, b: float, lam: float) -> float:
    """How far (w, b) is from the lasso optimum: 0 at the solution, computed independently."""
    n = len(y)
    grad = x.T @ (y - b - x @ w) / n
    on = w != 0
    v_on = np.abs(grad[on] - lam * np.sign(w[on])) if on.any() else np.zeros(1)
    v_off = np.maximum(np.abs(grad[~on]) - lam, 0) if (~on).any() else np.zeros(1)
    v_b = abs(float(np.mean(y - b - x @ w)))  # the intercept is unpenalised: residuals sum to 0
    return float(max(v_on.max(), v_off.max(), v_b))


def test_recovers_planted_sparse_weights() -> None:
    x = masks(200, 20, 1)
    w_true = np.zeros(20)
    w_true[[2, 9, 15]] = [0.8, -0.4, 0.25]
    y = 0.1 + x @ w_true + 0.02 * np.random.default_rng(2).standard_normal(200)
    cv = lasso_cv(x, y)
    assert np.allclose(cv.fit.weights, w_true, atol=0.03)
    assert set(np.flatnonzero(np.abs(cv.fit.weights) > 0.05)) == {2, 9, 15}
    assert abs(cv.fit.intercept - 0.1) < 0.03
    assert cv.heldout_r2 is not None and cv.heldout_r2 > 0.97
    assert cv.rank_correlation is not None and cv.rank_correlation > 0.95


def test_vanishing_penalty_equals_numpy_least_squares() -> None:
    x = masks(120, 8, 3)
    y = x @ np.arange(1.0, 9.0) + np.random.default_rng(4).standard_normal(120)
    design = np.column_stack([np.ones(120), x])
    ols, *_ = np.linalg.lstsq(design, y, rcond=None)
    fit = fit_lasso(x, y, 1e-12)
    assert np.allclose(fit.weights, ols[1:], atol=1e-6)
    assert abs(fit.intercept - ols[0]) < 1e-6


def test_fit_satisfies_the_optimality_conditions() -> None:
    x = masks(64, 30, 5)
    y = (x[:, 4] * x[:, 11] > 0).astype(float)  # an interaction: a dense, awkward fit
    for lam in lambda_grid(x, y)[::4]:
        fit = fit_lasso(x, y, float(lam))
        assert kkt_violation(x, y, fit.weights, fit.intercept, float(lam)) < 1e-6


@settings(max_examples=40, deadline=None)
# λ at or near 0 with a singular Gram matrix (10 sources, 10 rows): coordinate descent crawled
@example(n=10, p=10, seed=337, frac=0.0)
@example(n=10, p=10, seed=337, frac=2.1473734729397644e-68)
@given(
    n=st.integers(10, 40),
    p=st.integers(1, 12),
    seed=st.integers(0, 10_000),
    frac=st.floats(0.0, 1.0),
)
def test_kkt_holds_on_random_problems(n: int, p: int, seed: int, frac: float) -> None:
    x = masks(n, p, seed)
    y = np.random.default_rng(seed + 1).standard_normal(n)
    grid = lambda_grid(x, y)
    lam = float(grid[0]) * frac
    fit = fit_lasso(x, y, lam)
    assert kkt_violation(x, y, fit.weights, fit.intercept, lam) < 1e-6


def test_a_near_singular_problem_is_solved_to_the_optimum() -> None:
    # Found by the property above: 11 sources over 10 rows at a tiny penalty crawled past the
    # old 1,000-sweep cap and stopped with a KKT violation of 1.2e-5.
    x = masks(10, 11, 941)
    y = np.random.default_rng(942).standard_normal(10)
    lam = float(lambda_grid(x, y)[0]) * 6.103515625e-05
    fit = fit_lasso(x, y, lam)
    assert kkt_violation(x, y, fit.weights, fit.intercept, lam) < 1e-6


def test_penalty_at_lambda_max_zeroes_every_weight() -> None:
    x = masks(50, 6, 6)
    y = x[:, 0] + 0.5
    lam_max = float(lambda_grid(x, y)[0])
    fit = fit_lasso(x, y, lam_max)
    assert not fit.weights.any()
    assert fit.intercept == pytest.approx(float(y.mean()))
    assert fit_lasso(x, y, lam_max * 0.9).weights[0] > 0


def test_constant_target_has_no_r2_and_no_weights() -> None:
    cv = lasso_cv(masks(40, 5, 7), np.ones(40))
    assert cv.heldout_r2 is None
    assert cv.rank_correlation is None
    assert not cv.fit.weights.any()


def test_noise_target_predicts_left_out_rows_poorly() -> None:
    x = masks(64, 30, 8)
    y = (np.random.default_rng(9).random(64) < 0.5).astype(float)
    cv = lasso_cv(x, y)
    assert cv.heldout_r2 is not None and cv.heldout_r2 < 0.2


def test_constant_column_keeps_weight_zero() -> None:
    x = masks(40, 4, 10)
    x[:, 1] = 1.0
    y = x[:, 0] * 2 + x[:, 2]
    fit = fit_lasso(x, y, 1e-9)
    assert fit.weights[1] == 0
    assert fit.weights[0] == pytest.approx(2, abs=1e-6)


def test_cv_needs_two_rows_per_fold() -> None:
    with pytest.raises(ValueError, match="at least 10 rows"):
        lasso_cv(masks(9, 3, 0), np.arange(9.0))


def test_spearman() -> None:
    a = np.array([1.0, 2.0, 3.0, 4.0])
    assert spearman(a, a * 10) == pytest.approx(1.0)
    assert spearman(a, -a) == pytest.approx(-1.0)
    assert spearman(a, np.ones(4)) is None
    # ties take average ranks: [1, 2.5, 2.5, 4] against [1, 2, 3, 4]
    r = spearman(np.array([1.0, 2.0, 2.0, 3.0]), a)
    ra = np.array([1, 2.5, 2.5, 4]) - 2.5
    rb = np.array([1, 2, 3, 4]) - 2.5
    assert r == pytest.approx(float(ra @ rb / np.sqrt((ra @ ra) * (rb @ rb))))
