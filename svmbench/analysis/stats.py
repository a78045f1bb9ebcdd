"""Significance tests for comparing SVM training algorithms.

Public API (every test returns a frozen dataclass; ``statistic``, ``pvalue``,
``alternative`` and ``method`` are always present):

- :func:`paired_t_test` — paired Student t test over folds/realizations;
- :func:`wilcoxon_signed_rank` — Wilcoxon signed-rank test; the exact p-value is the
  permutation distribution of the signed ranks as they are (mid-ranks, Pratt zeros), so it
  stays exact with ties;
- :func:`wilcoxon_rank_sum` — Wilcoxon rank-sum / Mann-Whitney test, exact also with ties;
- :func:`friedman` — Friedman chi-square and the Iman-Davenport F (Demšar 2006, §3.2.2);
- :func:`nemenyi` — Nemenyi critical difference of average ranks (Demšar 2006, §3.2.2);
- :func:`holm` — Holm step-down adjusted p-values;
- :func:`ranks_vs_control` — each algorithm's average rank against a control's, z test with
  Holm's adjustment (Demšar 2006, §3.2.2);
- :func:`pairwise_wilcoxon_holm` — every pair of algorithms over data sets: Wilcoxon
  signed-rank with Holm's step-down adjustment over all pairs (Benavoli, Corani, Mangili, JMLR
  2016, "Should we really use post-hoc tests based on mean-ranks?");
- :func:`bayesian_signed_rank` — Bayesian signed-rank test with a region of practical
  equivalence (Benavoli, Corani, Demšar, Zaffalon, JMLR 2017, "Time for a change", §5.1):
  P(a better), P(equivalent), P(b better); :func:`pairwise_bayesian_signed_rank` for every pair;
- :func:`midranks` — ranks with ties given their average rank.

Alternatives follow scipy/R: ``"greater"`` means the first sample (``a``, or ``a - b``)
tends to be larger. scipy.stats is not used here (it serves as the tests' oracle);
distribution tails come from :mod:`scipy.special` and statsmodels. The Bayesian test is our own
(a few lines of numpy, seeded through a numpy Generator, vectorised over the posterior samples);
the tests check it against baycomp (dev extra), draw for draw on baycomp's own Dirichlet samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy.special import chdtrc, fdtrc, ndtr
from statsmodels.stats.libqsturng import qsturng
from statsmodels.stats.weightstats import DescrStatsW

ALTERNATIVES = ("two-sided", "less", "greater")
ZERO_METHODS = ("pratt", "wilcox", "zsplit")
METHODS = ("auto", "exact", "normal")
# method="auto" uses the exact distribution up to this many (non-zero / pooled) observations.
AUTO_EXACT_MAX_N = 50


@dataclass(frozen=True)
class TestResult:
    """Outcome of a hypothesis test."""

    statistic: float
    pvalue: float
    alternative: str
    method: str


@dataclass(frozen=True)
class TTestResult(TestResult):
    """Paired t test: ``statistic`` is t; ``mean_difference`` is mean(a - b)."""

    df: float
    mean_difference: float
    n: int


@dataclass(frozen=True)
class SignedRankResult(TestResult):
    """Wilcoxon signed-rank test.

    ``statistic`` is W+ = the sum of the ranks of the positive differences a - b (R's ``V``;
    with ``zsplit`` half of each zero's rank is added). ``r_minus`` is the same for negative
    differences. ``zstatistic`` is the standardised W+ (``None`` for the exact method).
    """

    r_minus: float
    n: int
    n_zero: int
    zstatistic: float | None


@dataclass(frozen=True)
class RankSumResult(TestResult):
    """Wilcoxon rank-sum test: ``statistic`` is U of ``a`` (= rank sum of a - n_a(n_a+1)/2)."""

    rank_sum: float
    n_a: int
    n_b: int
    zstatistic: float | None


@dataclass(frozen=True)
class FriedmanResult(TestResult):
    """Friedman test: ``statistic``/``pvalue`` are the chi-square form; ``f_statistic``/
    ``f_pvalue`` the Iman-Davenport F with ``f_df`` degrees of freedom.
    ``average_ranks`` holds each algorithm's average rank (1 = best)."""

    df: int
    f_statistic: float
    f_pvalue: float
    f_df: tuple[int, int]
    average_ranks: pd.Series
    n_datasets: int


@dataclass(frozen=True)
class NemenyiResult:
    """Nemenyi post-hoc test: two algorithms differ when their average ranks differ by at
    least ``critical_difference``."""

    critical_difference: float
    q_alpha: float
    alpha: float
    average_ranks: pd.Series
    n_datasets: int

    def differs(self, first: str, second: str) -> bool:
        """True when the two algorithms' average ranks differ significantly."""
        gap = abs(self.average_ranks[first] - self.average_ranks[second])
        return bool(gap >= self.critical_difference)


def midranks(values) -> np.ndarray:
    """Ranks 1..n of ``values``; tied values share the average of their ranks."""
    values = np.asarray(values)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    last = np.cumsum(counts)
    first = last - counts + 1
    return ((first + last) / 2.0)[inverse.ravel()]


def paired_t_test(a, b, alternative: str = "two-sided") -> TTestResult:
    """Paired t test of mean(a - b) = 0 (statsmodels ``DescrStatsW.ttest_mean``).

    When all differences are equal the t statistic is undefined (0/0 -> NaN, p NaN) or
    infinite (p 0 or 1, depending on the alternative).
    """
    _check_choice("alternative", alternative, ALTERNATIVES)
    diff = _paired_differences(a, b)
    n = diff.size
    if n < 2:
        raise ValueError(f"paired t test needs at least 2 pairs, got {n}; add folds/realizations")
    mean = float(diff.mean())
    if np.all(diff == diff[0]):
        return TTestResult(*_degenerate_t(mean, alternative), alternative, "paired t",
                           df=n - 1, mean_difference=mean, n=n)
    statsmodels_alternative = {"two-sided": "two-sided", "less": "smaller", "greater": "larger"}
    t, p, df = DescrStatsW(diff).ttest_mean(0.0, alternative=statsmodels_alternative[alternative])
    return TTestResult(float(t), float(p), alternative, "paired t", df=float(df),
                       mean_difference=mean, n=n)


def wilcoxon_signed_rank(a, b=None, alternative: str = "two-sided", zero_method: str = "pratt",
                         method: str = "auto", correction: bool = False,
                         decimals: int | None = None) -> SignedRankResult:
    """Wilcoxon signed-rank test of the differences ``a - b`` (or of ``a`` when b is None).

    zero_method: ``"pratt"`` ranks the zeros with the other |d| then drops them (Pratt 1959);
    ``"wilcox"`` drops zeros before ranking; ``"zsplit"`` ranks them and gives half of each
    zero's rank to W+ and half to W-.
    method: ``"exact"`` = the permutation distribution of W+ over the 2^n sign assignments of
    the non-zero differences, with the ranks as they are (mid-ranks included), computed by
    convolution over doubled ranks (integers); ``"normal"`` = normal approximation with the
    exact permutation mean and variance (this is the usual tie correction), with an optional
    0.5 continuity ``correction``; ``"auto"`` = exact for at most 50 non-zero differences.
    Two-sided exact p = min(1, 2 * smaller tail), as in R and scipy.
    decimals: round the differences to this many decimals before ranking, for scores that are
    rationals (accuracies in %, counts over test sets of different sizes): two differences that
    are equal as fractions can differ in the last bit as floats, and would then not tie.
    """
    _check_choice("alternative", alternative, ALTERNATIVES)
    _check_choice("zero_method", zero_method, ZERO_METHODS)
    _check_choice("method", method, METHODS)
    diff = _paired_differences(a, b)
    if decimals is not None:
        diff = np.round(diff, decimals)
    nonzero = diff != 0
    n_zero = int(diff.size - nonzero.sum())
    ranks = midranks(np.abs(diff[nonzero])) if zero_method == "wilcox" else midranks(np.abs(diff))
    signed = ranks if zero_method == "wilcox" else ranks[nonzero]
    positive = diff[nonzero] > 0
    # Doubled ranks are integers; zsplit's zeros add a fixed half rank to each side.
    fixed_doubled = round(ranks[~nonzero].sum()) if zero_method == "zsplit" else 0
    doubled = np.rint(2 * signed).astype(np.int64)
    w_plus2 = int(doubled[positive].sum()) + fixed_doubled
    w_minus2 = int(doubled[~positive].sum()) + fixed_doubled
    n_nonzero = int(nonzero.sum())
    if method == "auto":
        method = "exact" if n_nonzero <= AUTO_EXACT_MAX_N else "normal"
    common = {"r_minus": w_minus2 / 2, "n": int(diff.size), "n_zero": n_zero}
    if n_nonzero == 0:
        return SignedRankResult(w_plus2 / 2, 1.0, alternative, f"signed-rank {method}",
                                zstatistic=None, **common)
    if method == "exact":
        distribution = _sign_flip_distribution(doubled)
        pvalue = _lattice_pvalue(distribution, w_plus2 - fixed_doubled, alternative)
        return SignedRankResult(w_plus2 / 2, pvalue, alternative, "signed-rank exact",
                                zstatistic=None, **common)
    mean2 = doubled.sum() / 2 + fixed_doubled
    var2 = (doubled.astype(float) ** 2).sum() / 4
    z, pvalue = _normal_pvalue((w_plus2 - mean2) / 2, np.sqrt(var2) / 2, alternative, correction)
    return SignedRankResult(w_plus2 / 2, pvalue, alternative, "signed-rank normal",
                            zstatistic=z, **common)


def wilcoxon_rank_sum(a, b, alternative: str = "two-sided", method: str = "auto",
                      correction: bool = False) -> RankSumResult:
    """Wilcoxon rank-sum (Mann-Whitney) test of two independent samples.

    ``"greater"`` means ``a`` tends to be larger than ``b``. method ``"exact"`` = the
    permutation distribution of the rank sum of ``a`` over all n_a-subsets of the pooled
    mid-ranks (dynamic programme over doubled ranks), exact also with ties; ``"normal"`` =
    normal approximation with the tie-corrected permutation variance and an optional 0.5
    continuity ``correction``; ``"auto"`` = exact when n_a + n_b <= 50.
    """
    _check_choice("alternative", alternative, ALTERNATIVES)
    _check_choice("method", method, METHODS)
    first = _finite_sample(a, "a")
    second = _finite_sample(b, "b")
    n_a, n_b = first.size, second.size
    ranks = midranks(np.concatenate([first, second]))
    doubled = np.rint(2 * ranks).astype(np.int64)
    rank_sum2 = int(doubled[:n_a].sum())
    offset2 = n_a * (n_a + 1)
    if method == "auto":
        method = "exact" if n_a + n_b <= AUTO_EXACT_MAX_N else "normal"
    common = {"rank_sum": rank_sum2 / 2, "n_a": n_a, "n_b": n_b}
    u_statistic = (rank_sum2 - offset2) / 2
    if method == "exact":
        distribution = _subset_sum_distribution(doubled, n_a)
        pvalue = _lattice_pvalue(distribution, rank_sum2, alternative)
        return RankSumResult(u_statistic, pvalue, alternative, "rank-sum exact",
                             zstatistic=None, **common)
    n = n_a + n_b
    mean = n_a * (n + 1) / 2
    variance = n_a * n_b / (n * (n - 1)) * ((ranks - ranks.mean()) ** 2).sum() if n > 1 else 0.0
    if variance == 0:
        return RankSumResult(u_statistic, 1.0, alternative, "rank-sum normal", zstatistic=None,
                             **common)
    z, pvalue = _normal_pvalue(rank_sum2 / 2 - mean, np.sqrt(variance), alternative, correction)
    return RankSumResult(u_statistic, pvalue, alternative, "rank-sum normal", zstatistic=z,
                         **common)


def friedman(scores, lower_is_better: bool = False, tie_correction: bool = True
             ) -> FriedmanResult:
    """Friedman test over ``scores`` (rows = datasets, columns = algorithms).

    Ranks each row (1 = best; mid-ranks for ties) and returns the chi-square statistic
    (Demšar 2006, eq. for chi2_F; with ``tie_correction`` divided by
    1 - sum(t^3 - t) / (N k (k^2 - 1)), as R's friedman.test and scipy do) and the
    Iman-Davenport F = (N-1) chi2 / (N(k-1) - chi2) on (k-1, (k-1)(N-1)) degrees of freedom.
    """
    table = _score_table(scores)
    n_datasets, k = table.shape
    ranks = _row_ranks(table, lower_is_better)
    average = ranks.mean(axis=0)
    chi2 = 12 * n_datasets / (k * (k + 1)) * (np.sum(average ** 2) - k * (k + 1) ** 2 / 4)
    if tie_correction:
        ties = sum(_tie_sum(row) for row in table.to_numpy())
        denominator = 1 - ties / (n_datasets * k * (k * k - 1))
        if denominator > 0:  # denominator 0: every row all tied, so chi2 is already 0
            chi2 /= denominator
    df1, df2 = k - 1, (k - 1) * (n_datasets - 1)
    gap = n_datasets * (k - 1) - chi2
    f_statistic = (n_datasets - 1) * chi2 / gap if gap > 0 else np.inf
    f_p = float(fdtrc(df1, df2, f_statistic)) if np.isfinite(f_statistic) else 0.0
    return FriedmanResult(float(chi2), float(chdtrc(df1, chi2)), "greater", "Friedman", df=df1,
                          f_statistic=float(f_statistic), f_pvalue=f_p, f_df=(df1, df2),
                          average_ranks=pd.Series(average, index=table.columns, name="rank"),
                          n_datasets=n_datasets)


def nemenyi(scores_or_ranks, n_datasets: int | None = None, alpha: float = 0.05,
            lower_is_better: bool = False) -> NemenyiResult:
    """Nemenyi critical difference CD = q_alpha sqrt(k(k+1) / (6N)) (Demšar 2006, §3.2.2).

    Pass either a score table (rows = datasets, columns = algorithms; ranks and N are computed)
    or a 1-D series/mapping of average ranks together with ``n_datasets``. q_alpha is the
    studentized range quantile with infinite degrees of freedom divided by sqrt(2)
    (statsmodels ``qsturng``), i.e. Demšar's Table 5(a).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    if isinstance(scores_or_ranks, pd.DataFrame) or np.ndim(scores_or_ranks) == 2:
        table = _score_table(scores_or_ranks)
        average = _row_ranks(table, lower_is_better).mean(axis=0)
        average_ranks = pd.Series(average, index=table.columns, name="rank")
        n_datasets = table.shape[0]
    else:
        if n_datasets is None or n_datasets < 2:
            raise ValueError("average ranks given: pass n_datasets >= 2, the number of datasets "
                             "the ranks were averaged over")
        average_ranks = pd.Series(scores_or_ranks, name="rank", dtype=float)
        if average_ranks.size < 2 or not np.all(np.isfinite(average_ranks)):
            raise ValueError("average ranks must be finite and cover at least 2 algorithms")
    k = average_ranks.size
    if k > 200:
        raise ValueError(f"qsturng covers at most 200 algorithms, got {k}")
    q_alpha = float(qsturng(1 - alpha, k, np.inf)) / np.sqrt(2)
    critical_difference = q_alpha * np.sqrt(k * (k + 1) / (6 * n_datasets))
    return NemenyiResult(float(critical_difference), q_alpha, alpha, average_ranks,
                         int(n_datasets))


def holm(pvalues) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values, input order: the i-th smallest p times m - i + 1
    (i from 1), made non-decreasing along that order and capped at 1 (statsmodels'
    ``multipletests(method="holm")``, which the tests take as the oracle, calls ``gc.collect()``
    on every call: seconds in a large process)."""
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise ValueError("holm needs a non-empty 1-D sequence of p-values")
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError(f"p-values must lie in [0, 1] (NaN not allowed), got {p.tolist()}")
    order = np.argsort(p, kind="stable")
    steps = np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1))
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(steps, 1.0)
    return adjusted


def ranks_vs_control(average_ranks, n_datasets: int, control: str) -> pd.DataFrame:
    """Each other algorithm against ``control`` by average rank (Demšar 2006, §3.2.2):
    z = (R_i - R_control) / sqrt(k(k+1) / (6N)), two-sided p-value, Holm-adjusted over the k - 1
    comparisons. Columns ``rank``, ``z``, ``pvalue``, ``holm_pvalue``, one row per other
    algorithm, in the order of ``average_ranks``."""
    ranks = pd.Series(average_ranks, dtype=float)
    if control not in ranks.index:
        raise ValueError(f"control {control!r} is not among the algorithms {list(ranks.index)}")
    if ranks.size < 2 or n_datasets < 2:
        raise ValueError(f"need at least 2 algorithms and 2 datasets, got {ranks.size} and "
                         f"{n_datasets}")
    k = ranks.size
    others = ranks.drop(control)
    z = (others - ranks[control]) / np.sqrt(k * (k + 1) / (6.0 * n_datasets))
    pvalues = np.minimum(1.0, 2.0 * ndtr(-np.abs(z.to_numpy())))
    return pd.DataFrame({"rank": others, "z": z, "pvalue": pvalues,
                         "holm_pvalue": holm(pvalues)}, index=others.index)


def pairwise_wilcoxon_holm(scores, alpha: float = 0.05, zero_method: str = "pratt",
                           method: str = "auto", decimals: int | None = None) -> pd.DataFrame:
    """Wilcoxon signed-rank test of every pair of algorithms over the data sets, Holm-adjusted
    over all k(k-1)/2 pairs (Benavoli, Corani, Mangili 2016; Demšar 2006 §3.2.1 for the test).

    ``scores``: rows = data sets, columns = algorithms (higher or lower better: the test is
    two-sided). One row per pair (``first``, ``second`` in column order): ``statistic`` = W+ of
    first - second, ``r_minus``, ``n`` (data sets), ``n_zero`` (ties), ``median_difference``,
    ``pvalue`` (two-sided; exact up to 50 non-zero differences, as
    :func:`wilcoxon_signed_rank`), ``holm_pvalue`` and ``reject`` (holm_pvalue < alpha).
    ``decimals``: the differences are rounded so before ranking (see :func:`wilcoxon_signed_rank`).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    table = _score_table(scores)
    rows = []
    for first, second in combinations(table.columns, 2):
        difference = table[first] - table[second]
        if decimals is not None:
            difference = np.round(difference, decimals)
        test = wilcoxon_signed_rank(difference, zero_method=zero_method, method=method)
        rows.append({"first": first, "second": second, "statistic": test.statistic,
                     "r_minus": test.r_minus, "n": test.n, "n_zero": test.n_zero,
                     "median_difference": float(np.median(difference)),
                     "pvalue": test.pvalue})
    pairs = pd.DataFrame(rows)
    pairs["holm_pvalue"] = holm(pairs["pvalue"].to_numpy())
    pairs["reject"] = pairs["holm_pvalue"] < alpha
    return pairs


@dataclass(frozen=True)
class BayesianSignedRankResult:
    """Bayesian signed-rank test of a - b with a ROPE: the posterior probability that each
    region is the most probable one (Benavoli et al. 2017, §5.1; baycomp's ``probs``).
    ``samples``: the posterior samples of (theta_b, theta_equivalent, theta_a), one row each."""

    p_a_better: float
    p_equivalent: float
    p_b_better: float
    rope: float
    prior: float
    nsamples: int
    seed: int
    samples: np.ndarray


def bayesian_signed_rank(a, b, rope: float = 1.0, prior: float = 0.5, nsamples: int = 50000,
                         seed: int = 0) -> BayesianSignedRankResult:
    """Bayesian signed-rank test of the paired differences z = a - b (one per data set).

    The Dirichlet process posterior of z has weights w ~ Dirichlet(prior, 1, ..., 1) on a
    pseudo-observation z_0 = 0 and on the n observed differences (Benavoli et al. 2017, eq. 9);
    each draw gives theta_a = sum_ij w_i w_j H((z_i + z_j) / 2 - rope) (a better by more than
    the ROPE: the Walsh averages of the signed-rank statistic), theta_b likewise below -rope,
    theta_equivalent = 1 - theta_a - theta_b, with H(0) = 1/2. Reported: the fraction of draws
    in which each region's theta is the largest. ``seed`` feeds numpy's default Generator, so
    a result is reproducible; the Monte Carlo error of each probability is at most
    0.5 / sqrt(nsamples) (0.0022 at 50,000).
    """
    diff = _paired_differences(a, b)
    if rope < 0:
        raise ValueError(f"rope must be >= 0, got {rope}")
    if prior <= 0 or nsamples < 1:
        raise ValueError(f"prior must be > 0 and nsamples >= 1, got {prior} and {nsamples}")
    alpha = np.concatenate([[prior], np.ones(diff.size)])
    weights = np.random.default_rng(seed).dirichlet(alpha, nsamples)
    samples = signed_rank_posterior(diff, rope, weights)
    p_b, p_equivalent, p_a = np.bincount(samples.argmax(axis=1), minlength=3) / nsamples
    return BayesianSignedRankResult(float(p_a), float(p_equivalent), float(p_b), float(rope),
                                    float(prior), int(nsamples), int(seed), samples)


def signed_rank_posterior(diff, rope: float, weights: np.ndarray) -> np.ndarray:
    """Posterior samples (theta_b, theta_equivalent, theta_a) of the Bayesian signed-rank test
    for differences ``diff`` given Dirichlet ``weights`` (draws x (1 + n), the first column the
    pseudo-observation 0's weight): one row per draw."""
    z = np.concatenate([[0.0], np.asarray(diff, dtype=float)])
    walsh = z[:, None] + z[None, :]
    above = (walsh > 2 * rope) + 0.5 * (walsh == 2 * rope)
    below = (-walsh > 2 * rope) + 0.5 * (-walsh == 2 * rope)
    theta_a = np.einsum("si,ij,sj->s", weights, above, weights)
    theta_b = np.einsum("si,ij,sj->s", weights, below, weights)
    return np.column_stack([theta_b, 1.0 - theta_a - theta_b, theta_a])


def pairwise_bayesian_signed_rank(scores, rope: float = 1.0, prior: float = 0.5,
                                  nsamples: int = 50000, seed: int = 0) -> pd.DataFrame:
    """:func:`bayesian_signed_rank` of every pair of columns of ``scores`` (rows = data sets,
    higher = better; e.g. accuracy in percent with ``rope`` 1 = one accuracy point), each pair
    seeded with ``seed``. Columns ``first``, ``second``, ``p_first_better``, ``p_equivalent``,
    ``p_second_better``, ``mean_difference``."""
    table = _score_table(scores)
    rows = []
    for first, second in combinations(table.columns, 2):
        test = bayesian_signed_rank(table[first], table[second], rope, prior, nsamples, seed)
        rows.append({"first": first, "second": second, "p_first_better": test.p_a_better,
                     "p_equivalent": test.p_equivalent, "p_second_better": test.p_b_better,
                     "mean_difference": float((table[first] - table[second]).mean())})
    return pd.DataFrame(rows)


def _check_choice(name: str, value: str, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name}={value!r} is not supported; choose one of {list(choices)}")


def _finite_sample(values, name: str) -> np.ndarray:
    sample = np.asarray(values, dtype=float)
    if sample.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {sample.shape}")
    if sample.size == 0:
        raise ValueError(f"{name} is empty; pass at least one observation")
    bad = np.flatnonzero(~np.isfinite(sample))
    if bad.size:
        raise ValueError(f"{name} has NaN/inf at positions {bad.tolist()}; drop or rerun those "
                         "cells before testing")
    return sample


def _paired_differences(a, b) -> np.ndarray:
    first = _finite_sample(a, "a")
    if b is None:
        return first
    second = _finite_sample(b, "b")
    if first.size != second.size:
        raise ValueError(f"paired samples differ in length ({first.size} vs {second.size}); "
                         "align them on the same folds/datasets first")
    return first - second


def _degenerate_t(mean: float, alternative: str) -> tuple[float, float]:
    if mean == 0:
        return np.nan, np.nan
    t = np.copysign(np.inf, mean)
    if alternative == "two-sided":
        return t, 0.0
    supports = (alternative == "greater") == (mean > 0)
    return t, 0.0 if supports else 1.0


def _sign_flip_distribution(doubled_ranks: np.ndarray) -> np.ndarray:
    """P(sum of doubled ranks with a + sign = s), each sign + or - with probability 1/2."""
    distribution = np.zeros(int(doubled_ranks.sum()) + 1)
    distribution[0] = 1.0
    top = 0
    for rank in doubled_ranks:
        shifted = distribution[: top + 1].copy()
        distribution[: top + 1] *= 0.5
        distribution[rank: rank + top + 1] += 0.5 * shifted
        top += rank
    return distribution


def _subset_sum_distribution(doubled_ranks: np.ndarray, size: int) -> np.ndarray:
    """P(sum of a uniformly random ``size``-subset of the doubled ranks = s).

    After item i, row k holds the distribution for a uniform k-subset of the first i items:
    row_k <- (i-k)/i row_k + k/i shift(row_{k-1}), which keeps every entry a probability.
    """
    total = int(doubled_ranks.sum())
    rows = np.zeros((size + 1, total + 1))
    rows[0, 0] = 1.0
    for i, rank in enumerate(doubled_ranks, start=1):
        for k in range(min(i, size), 0, -1):
            take = np.zeros(total + 1)
            take[rank:] = rows[k - 1, : total + 1 - rank]
            rows[k] = (i - k) / i * rows[k] + k / i * take
    return rows[size]


def _lattice_pvalue(distribution: np.ndarray, observed: int, alternative: str) -> float:
    upper = float(distribution[observed:].sum())
    lower = float(distribution[: observed + 1].sum())
    if alternative == "greater":
        return min(1.0, upper)
    if alternative == "less":
        return min(1.0, lower)
    return min(1.0, 2 * min(upper, lower))


def _normal_pvalue(centred: float, sd: float, alternative: str, correction: bool
                   ) -> tuple[float, float]:
    if correction:
        if alternative == "greater":
            centred -= 0.5
        elif alternative == "less":
            centred += 0.5
        else:
            centred -= 0.5 * np.sign(centred)
    z = float(centred / sd)
    if alternative == "greater":
        return z, float(ndtr(-z))
    if alternative == "less":
        return z, float(ndtr(z))
    return z, float(min(1.0, 2 * ndtr(-abs(z))))


def _score_table(scores) -> pd.DataFrame:
    table = pd.DataFrame(scores).astype(float)
    if table.ndim != 2 or table.shape[1] < 2:
        raise ValueError(f"scores need at least 2 algorithms (columns), got shape {table.shape}")
    if table.shape[0] < 2:
        raise ValueError(f"scores need at least 2 datasets (rows), got {table.shape[0]}")
    missing = table.index[~np.isfinite(table.to_numpy()).all(axis=1)]
    if len(missing):
        raise ValueError(f"scores have NaN/inf in rows {list(missing)}; drop those datasets or "
                         "fill the missing runs")
    return table


def _row_ranks(table: pd.DataFrame, lower_is_better: bool) -> np.ndarray:
    values = table.to_numpy()
    oriented = values if lower_is_better else -values
    return np.vstack([midranks(row) for row in oriented])


def _tie_sum(row: np.ndarray) -> float:
    _, counts = np.unique(row, return_counts=True)
    return float(np.sum(counts.astype(float) ** 3 - counts))
