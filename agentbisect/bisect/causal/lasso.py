"""L1-regularised least squares (the lasso) in numpy, with the penalty chosen by k-fold
cross-validation and the fit judged on the folds left out.

The surrogate attribution (``surrogate.py``) fits ``score ≈ b + Σ w_j · removed_j`` over random
ablation masks. This module knows nothing about masks or sources: it takes a design matrix and a
target and returns weights, the chosen penalty and held-out fit statistics.

Objective (the scikit-learn convention, so a reader can check it against a known tool):
``(1 / 2n) · ‖y − b − X w‖² + λ · ‖w‖₁``, intercept ``b`` unpenalised. Solved by cyclic
coordinate descent on the centred Gram matrix with warm starts down a geometric λ path, sweeping
only the active set between full sweeps: one update is a handful of scalar operations plus one
length-p vector update, so 100 features × 256 rows × 5 folds × 25 penalties stays far below a
second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

DEFAULT_FOLDS = 5
DEFAULT_N_LAMBDAS = 25
# λ_min / λ_max: three decades reach an almost unpenalised fit while keeping the path short.
DEFAULT_LAMBDA_RATIO = 1e-3
_TOL = 1e-7
# A near-singular problem (as many sources as rows, λ near 0) can take ~1,200 sweeps before its
# support settles and the exact solve takes over; 1,000 stopped such a fit short of the optimum.
_MAX_SWEEPS = 5000
_PATIENCE = 4  # penalties in a row with CV error above its minimum before the path stops
_RISE = 0.01  # "above" means by more than 1 %, so a flat plateau does not stop the path


@dataclass(frozen=True)
class LassoFit:
    weights: FloatArray
    intercept: float
    lam: float
    sweeps: int


@dataclass(frozen=True)
class CvFit:
    """A lasso fit whose penalty was chosen by k-fold cross-validation.

    ``heldout_r2`` = 1 − Σ(y − ŷ_oof)² / Σ(y − ȳ)², where ŷ_oof is each row's prediction by the
    model fitted without its fold, at the chosen penalty; ``None`` when y is constant (there is no
    variance to explain). ``rank_correlation`` is Spearman's ρ between y and ŷ_oof (``None`` when
    either is constant).
    """

    fit: LassoFit
    lambdas: FloatArray
    heldout_r2: float | None
    rank_correlation: float | None
    folds: int


class _Problem:
    """One least-squares problem in Gram form, set up once and solved along the λ path.

    With X and y centred (the intercept is then ȳ − x̄ᵀw), the lasso objective is, up to a
    constant, ½wᵀGw − cᵀw + λ‖w‖₁ with G = XᵀX/n and c = Xᵀy/n.
    """

    def __init__(self, x: FloatArray, y: FloatArray) -> None:
        n = x.shape[0]
        self.xm = x.mean(axis=0)
        self.ym = float(y.mean())
        xc = x - self.xm
        self.gram = (xc.T @ xc) / n
        self.c = (xc.T @ (y - self.ym)) / n
        self.diag = [float(v) for v in np.diag(self.gram)]
        self.cl = [float(v) for v in self.c]
        self.rows = list(self.gram)  # G is symmetric: row j is column j, and a contiguous view
        # a constant column carries no information: it is never updated, so its weight stays 0
        self.live = [j for j, d in enumerate(self.diag) if d > 0.0]

    def intercept(self, w: FloatArray) -> float:
        return self.ym - float(self.xm @ w)

    def solve(self, lam: float, w: FloatArray, tol: float = _TOL) -> tuple[FloatArray, int]:
        """Coordinate descent from the warm start ``w`` (not modified); returns (w, sweeps).

        ``q = G w`` is kept up to date, so one coordinate update is a few scalar operations
        plus one length-p vector update. Between full sweeps only the non-zero coordinates are
        swept (the active set), and after a sweep that moved something the exact solution for
        the current support and signs is tried (``_exact_on_support``).
        """
        diag, cl, rows = self.diag, self.cl, self.rows
        q = self.gram @ w
        wl = [float(v) for v in w]
        sweeps = 0
        full = True
        while sweeps < _MAX_SWEEPS:
            sweeps += 1
            idx = self.live if full else [j for j in self.live if wl[j] != 0.0]
            max_delta = 0.0
            max_w = 0.0
            for j in idx:
                d = diag[j]
                old = wl[j]
                rho = cl[j] - q.item(j) + d * old
                if rho > lam:
                    new = (rho - lam) / d
                elif rho < -lam:
                    new = (rho + lam) / d
                else:
                    new = 0.0
                if new != old:
                    delta = new - old
                    q += delta * rows[j]
                    wl[j] = new
                    ad = abs(delta) * d
                    if ad > max_delta:
                        max_delta = ad
                an = abs(new)
                if an > max_w:
                    max_w = an
            if max_delta <= tol * max(1.0, max_w):
                if full:
                    break
                full = True  # the active set settled: one full sweep to confirm nothing else enters
            else:
                full = False
                exact = self._exact_on_support(lam, wl)
                if exact is not None:
                    return exact, sweeps
        return np.asarray(wl, dtype=np.float64), sweeps

    def _exact_on_support(self, lam: float, wl: list[float]) -> FloatArray | None:
        """The exact minimiser if the current support and signs are the final ones, else None.

        Coordinate descent finds the support in a few sweeps but then converges only linearly on
        a dense, correlated support (pure-noise targets). With support A and signs s fixed, the
        optimum solves G_AA w_A = c_A − λ s_A; it is accepted only if it keeps the signs and
        meets every optimality (KKT) condition, so the answer is the lasso solution either way.
        """
        active = [j for j, v in enumerate(wl) if v != 0.0]
        if not active:
            return None
        a = np.asarray(active)
        signs = np.sign(np.asarray([wl[j] for j in active]))
        g_aa, rhs = self.gram[np.ix_(a, a)], self.c[a] - lam * signs
        try:
            wa = np.linalg.solve(g_aa, rhs)
        except np.linalg.LinAlgError:
            wa = None
        if wa is not None:
            w = self._place(a, wa, len(wl))
            if np.all(np.sign(wa) == signs) and self._optimal(w, lam):
                return w
        # A singular G_AA (as many sources as rows, λ near 0): solve() fails or returns a
        # meaningless point, and coordinate descent only crawls. The minimum-norm solution is
        # a candidate; the optimality check below decides, as for any other candidate.
        wa = np.linalg.lstsq(g_aa, rhs, rcond=None)[0]
        w = self._place(a, wa, len(wl))
        return w if self._optimal(w, lam) else None

    @staticmethod
    def _place(a: NDArray[np.int64], wa: FloatArray, p: int) -> FloatArray:
        w = np.zeros(p)
        w[a] = wa
        return w

    def _optimal(self, w: FloatArray, lam: float) -> bool:
        """The lasso optimality (KKT) conditions, with ``w``'s own support and signs: the
        gradient is λ·sign(w_j) on the support and at most λ in size off it. The problem is
        convex, so a point meeting them is a solution."""
        grad = self.c - self.gram @ w
        slack = 1e-9 * max(1.0, float(np.max(np.abs(self.c))))
        on = w != 0.0
        if np.any(np.abs(grad[on] - lam * np.sign(w[on])) > slack):
            return False
        return not np.any(np.abs(grad[~on]) > lam + slack)


def lambda_grid(
    x: FloatArray, y: FloatArray, n: int = DEFAULT_N_LAMBDAS, ratio: float = DEFAULT_LAMBDA_RATIO
) -> FloatArray:
    """A geometric grid from λ_max (the smallest λ giving w = 0) down to ``ratio`` · λ_max."""
    c = _Problem(x, y).c
    lam_max = float(np.max(np.abs(c))) if c.size else 0.0
    if lam_max <= 0.0:
        return np.zeros(1)
    return lam_max * np.geomspace(1.0, ratio, n)


def _path(x: FloatArray, y: FloatArray, lambdas: FloatArray) -> list[LassoFit]:
    prob = _Problem(x, y)
    w = np.zeros(x.shape[1])
    fits: list[LassoFit] = []
    for lam in lambdas:
        w, sweeps = prob.solve(float(lam), w)
        fits.append(LassoFit(w, prob.intercept(w), float(lam), sweeps))
    return fits


def fit_lasso(x: FloatArray, y: FloatArray, lam: float) -> LassoFit:
    """One lasso fit at penalty ``lam`` (via the path from λ_max for a good warm start)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    grid = lambda_grid(x, y)
    lams = np.concatenate([grid[grid > lam], [lam]])
    return _path(x, y, lams)[-1]


def _ranks(v: FloatArray) -> FloatArray:
    """Ranks 1..n with ties given their average rank."""
    order = np.argsort(v, kind="mergesort")
    sv = v[order]
    ranks = np.empty(len(v))
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(a: FloatArray, b: FloatArray) -> float | None:
    """Spearman's rank correlation; ``None`` when either side is constant."""
    ra, rb = _ranks(np.asarray(a, float)), _ranks(np.asarray(b, float))
    sa, sb = float(ra.std()), float(rb.std())
    if sa == 0.0 or sb == 0.0:
        return None
    return float(np.mean((ra - ra.mean()) * (rb - rb.mean())) / (sa * sb))


def _fold_ids(n: int, k: int, seed: int) -> NDArray[np.int64]:
    perm = np.random.default_rng(seed).permutation(n)
    ids = np.empty(n, dtype=np.int64)
    ids[perm] = np.arange(n) % k
    return ids


def _turned_up(mse: list[float]) -> bool:
    """The CV error has stayed above its minimum for ``_PATIENCE`` penalties in a row.

    Smaller penalties only add weight to what the held-out rows already say is noise, and that
    dense end of the path is where coordinate descent spends nearly all its time (a pure-noise
    target fits all 100 sources there). Cutting the path here keeps a 100 × 256 fit fast.
    """
    if len(mse) <= _PATIENCE:
        return False
    low = min(mse)
    return all(m > low * (1 + _RISE) for m in mse[-_PATIENCE:])


def lasso_cv(
    x: FloatArray,
    y: FloatArray,
    *,
    folds: int = DEFAULT_FOLDS,
    n_lambdas: int = DEFAULT_N_LAMBDAS,
    seed: int = 0,
) -> CvFit:
    """Choose λ by ``folds``-fold CV (least mean squared error on the left-out rows; on a tie the
    larger, sparser λ), refit on all rows, and report the held-out fit at that λ.

    The folds walk the λ grid together, and the walk stops once the CV error has clearly turned
    up (``_turned_up``), so ``lambdas`` may be shorter than the grid.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.shape[0]
    if n < 2 * folds:
        raise ValueError(f"{folds}-fold cross-validation needs at least {2 * folds} rows, got {n}")
    lambdas = lambda_grid(x, y, n_lambdas)
    ids = _fold_ids(n, folds, seed)
    tests = [ids == f for f in range(folds)]
    problems = [_Problem(x[~t], y[~t]) for t in tests]
    warm = [np.zeros(x.shape[1]) for _ in range(folds)]
    oof = np.empty((n, len(lambdas)))
    mse: list[float] = []
    for i, lam in enumerate(lambdas):
        for f, (test, prob) in enumerate(zip(tests, problems, strict=True)):
            warm[f], _ = prob.solve(float(lam), warm[f])
            oof[test, i] = prob.intercept(warm[f]) + x[test] @ warm[f]
        mse.append(float(np.mean((oof[:, i] - y) ** 2)))
        if _turned_up(mse):
            break
    best = int(np.argmin(mse))  # argmin takes the first minimum: the largest λ among ties
    lambdas = lambdas[: len(mse)]
    fit = _path(x, y, lambdas[: best + 1])[-1]
    pred = oof[:, best]
    sst = float(np.sum((y - y.mean()) ** 2))
    r2 = None if sst == 0.0 else 1.0 - float(np.sum((y - pred) ** 2)) / sst
    return CvFit(
        fit=fit, lambdas=lambdas, heldout_r2=r2, rank_correlation=spearman(y, pred), folds=folds
    )
