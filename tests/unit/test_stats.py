"""svmbench.analysis.stats against scipy.stats, statsmodels, baycomp and brute-force enumeration
(the oracles)."""

import itertools
from fractions import Fraction
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats import multitest

from svmbench.analysis import stats

ALTERNATIVES = ["two-sided", "less", "greater"]
FAST = settings(max_examples=60, deadline=None)

# Small integers give many ties and zero differences.
small_ints = st.lists(st.integers(-4, 4), min_size=1, max_size=12)
paired_small = st.integers(1, 12).flatmap(
    lambda n: st.tuples(st.lists(st.integers(0, 5), min_size=n, max_size=n),
                        st.lists(st.integers(0, 5), min_size=n, max_size=n)))


def brute_force_signed_rank(diff, zero_method, alternative):
    """Enumerate all 2^n sign flips of |d| (zeros stay zero) and recompute W+."""
    diff = np.asarray(diff, dtype=float)

    def w_plus(d):
        if zero_method == "wilcox":
            nz = d[d != 0]
            ranks = scipy.stats.rankdata(np.abs(nz))
            return ranks[nz > 0].sum()
        ranks = scipy.stats.rankdata(np.abs(d))
        extra = ranks[d == 0].sum() / 2 if zero_method == "zsplit" else 0.0
        return ranks[d > 0].sum() + extra

    observed = w_plus(diff)
    values = np.array([w_plus(np.abs(diff) * np.array(signs))
                       for signs in itertools.product([1, -1], repeat=diff.size)])
    upper, lower = np.mean(values >= observed - 1e-9), np.mean(values <= observed + 1e-9)
    pvalue = {"greater": upper, "less": lower, "two-sided": min(1.0, 2 * min(upper, lower))}
    return observed, pvalue[alternative]


def brute_force_rank_sum(a, b, alternative):
    pooled = np.concatenate([a, b]).astype(float)
    ranks = scipy.stats.rankdata(pooled)
    observed = ranks[: len(a)].sum()
    sums = np.array([ranks[list(c)].sum()
                     for c in itertools.combinations(range(pooled.size), len(a))])
    upper, lower = np.mean(sums >= observed - 1e-9), np.mean(sums <= observed + 1e-9)
    return {"greater": upper, "less": lower, "two-sided": min(1.0, 2 * min(upper, lower))}[
        alternative]


@FAST
@given(diff=small_ints, zero_method=st.sampled_from(["pratt", "wilcox", "zsplit"]),
       alternative=st.sampled_from(ALTERNATIVES))
def test_signed_rank_exact_matches_enumeration_with_ties_and_zeros(diff, zero_method,
                                                                   alternative):
    result = stats.wilcoxon_signed_rank(diff, alternative=alternative, zero_method=zero_method,
                                        method="exact")
    observed, pvalue = brute_force_signed_rank(diff, zero_method, alternative)
    assert result.statistic == pytest.approx(observed)
    if np.any(np.asarray(diff) != 0):
        assert result.pvalue == pytest.approx(pvalue, rel=1e-9, abs=1e-12)
    else:
        assert result.pvalue == 1.0


@FAST
@given(data=st.data(), alternative=st.sampled_from(ALTERNATIVES))
def test_signed_rank_exact_matches_scipy_without_ties(data, alternative):
    n = data.draw(st.integers(1, 25))
    magnitudes = data.draw(st.permutations(range(1, n + 1)))
    signs = data.draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    diff = np.array(magnitudes) * np.array(signs) + 0.25
    ours = stats.wilcoxon_signed_rank(diff, alternative=alternative, method="exact")
    oracle = scipy.stats.wilcoxon(diff, alternative=alternative, method="exact")
    assert ours.pvalue == pytest.approx(oracle.pvalue, rel=1e-9)
    if alternative != "two-sided":  # scipy reports min(W+, W-) for two-sided
        assert ours.statistic == pytest.approx(oracle.statistic)


@FAST
@given(pair=paired_small, zero_method=st.sampled_from(["pratt", "wilcox"]),
       alternative=st.sampled_from(ALTERNATIVES), correction=st.booleans())
def test_signed_rank_normal_matches_scipy_with_ties(pair, zero_method, alternative, correction):
    a, b = map(np.asarray, pair)
    if np.count_nonzero(a - b) == 0:
        return
    ours = stats.wilcoxon_signed_rank(a, b, alternative, zero_method, "normal", correction)
    oracle = scipy.stats.wilcoxon(a, b, zero_method=zero_method, alternative=alternative,
                                  method="asymptotic", correction=correction)
    assert ours.pvalue == pytest.approx(oracle.pvalue, rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("zero_method", ["pratt", "wilcox", "zsplit"])
def test_signed_rank_exact_and_normal_agree_for_large_n(alternative, zero_method):
    rng = np.random.default_rng(7)
    diff = np.round(rng.normal(0.15, 1.0, size=400), 1)  # many ties and some zeros
    exact = stats.wilcoxon_signed_rank(diff, alternative=alternative, zero_method=zero_method,
                                       method="exact")
    normal = stats.wilcoxon_signed_rank(diff, alternative=alternative, zero_method=zero_method,
                                        method="normal", correction=True)
    assert exact.statistic == normal.statistic
    assert exact.pvalue == pytest.approx(normal.pvalue, rel=0.05, abs=1e-4)


def test_signed_rank_auto_switches_at_50_nonzero():
    rng = np.random.default_rng(1)
    assert stats.wilcoxon_signed_rank(rng.normal(size=50)).method.endswith("exact")
    assert stats.wilcoxon_signed_rank(rng.normal(size=51)).method.endswith("normal")


@FAST
@given(a=st.lists(st.integers(0, 4), min_size=1, max_size=6),
       b=st.lists(st.integers(0, 4), min_size=1, max_size=6),
       alternative=st.sampled_from(ALTERNATIVES))
def test_rank_sum_exact_matches_enumeration_with_ties(a, b, alternative):
    result = stats.wilcoxon_rank_sum(a, b, alternative=alternative, method="exact")
    assert result.pvalue == pytest.approx(brute_force_rank_sum(a, b, alternative), rel=1e-9)
    u = scipy.stats.mannwhitneyu(a, b, alternative=alternative, method="asymptotic")
    if alternative != "two-sided":
        assert result.statistic == pytest.approx(u.statistic)


@FAST
@given(data=st.data(), alternative=st.sampled_from(ALTERNATIVES))
def test_rank_sum_exact_matches_scipy_without_ties(data, alternative):
    n_a, n_b = data.draw(st.integers(1, 12)), data.draw(st.integers(1, 12))
    pooled = np.array(data.draw(st.permutations(range(n_a + n_b))), dtype=float)
    a, b = pooled[:n_a], pooled[n_a:]
    ours = stats.wilcoxon_rank_sum(a, b, alternative=alternative, method="exact")
    oracle = scipy.stats.mannwhitneyu(a, b, alternative=alternative, method="exact")
    assert ours.pvalue == pytest.approx(oracle.pvalue, rel=1e-9)
    assert ours.statistic == pytest.approx(oracle.statistic)


@FAST
@given(a=st.lists(st.integers(0, 6), min_size=2, max_size=40),
       b=st.lists(st.integers(0, 6), min_size=2, max_size=40),
       alternative=st.sampled_from(ALTERNATIVES), correction=st.booleans())
def test_rank_sum_normal_matches_scipy_with_ties(a, b, alternative, correction):
    if len(set(a) | set(b)) == 1:
        return
    ours = stats.wilcoxon_rank_sum(a, b, alternative, "normal", correction)
    oracle = scipy.stats.mannwhitneyu(a, b, alternative=alternative, method="asymptotic",
                                      use_continuity=correction)
    assert ours.pvalue == pytest.approx(oracle.pvalue, rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_rank_sum_exact_and_normal_agree_for_large_n(alternative):
    rng = np.random.default_rng(3)
    a, b = np.round(rng.normal(0.3, 1, 60), 1), np.round(rng.normal(0, 1, 70), 1)
    exact = stats.wilcoxon_rank_sum(a, b, alternative, "exact")
    normal = stats.wilcoxon_rank_sum(a, b, alternative, "normal", correction=True)
    assert exact.pvalue == pytest.approx(normal.pvalue, rel=0.05, abs=1e-4)


@FAST
@given(pair=paired_small.filter(lambda p: len(p[0]) >= 2),
       alternative=st.sampled_from(ALTERNATIVES))
def test_paired_t_matches_scipy(pair, alternative):
    a, b = map(np.asarray, pair)
    ours = stats.paired_t_test(a, b, alternative)
    oracle = scipy.stats.ttest_rel(a.astype(float), b.astype(float), alternative=alternative)
    if np.isnan(oracle.pvalue):
        assert np.isnan(ours.pvalue)
    else:
        assert ours.pvalue == pytest.approx(oracle.pvalue, rel=1e-9, abs=1e-15)
        assert ours.statistic == pytest.approx(oracle.statistic, rel=1e-9)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # scipy on all-tied rows
@FAST
@given(data=st.data(), lower=st.booleans())
def test_friedman_matches_scipy(data, lower):
    n, k = data.draw(st.integers(2, 30)), data.draw(st.integers(3, 6))
    cells = data.draw(st.lists(st.integers(0, 3), min_size=n * k, max_size=n * k))
    scores = np.array(cells, dtype=float).reshape(n, k)
    ours = stats.friedman(scores, lower_is_better=lower)
    oracle = scipy.stats.friedmanchisquare(*scores.T)
    if np.isnan(oracle.statistic):  # every row tied: no evidence of a difference
        assert ours.statistic == 0 and ours.pvalue == 1
        return
    assert ours.statistic == pytest.approx(oracle.statistic, rel=1e-9, abs=1e-12)
    assert ours.pvalue == pytest.approx(oracle.pvalue, rel=1e-9)
    df1, df2 = ours.f_df
    chi2 = ours.statistic
    if chi2 < n * (k - 1):
        expected_f = (n - 1) * chi2 / (n * (k - 1) - chi2)
        assert ours.f_statistic == pytest.approx(expected_f)
        assert ours.f_pvalue == pytest.approx(scipy.stats.f.sf(expected_f, df1, df2), rel=1e-9)


def test_friedman_average_ranks_use_midranks_and_orientation():
    scores = pd.DataFrame({"x": [0.9, 0.8], "y": [0.9, 0.7], "z": [0.1, 0.7]})
    higher = stats.friedman(scores).average_ranks
    assert higher.to_dict() == {"x": 1.25, "y": 2.0, "z": 2.75}
    lower = stats.friedman(scores, lower_is_better=True).average_ranks
    assert lower.to_dict() == {"x": 2.75, "y": 2.0, "z": 1.25}


@pytest.mark.parametrize("k, q", [(2, 1.960), (3, 2.343), (4, 2.569), (5, 2.728), (6, 2.850),
                                  (7, 2.949), (8, 3.031), (9, 3.102), (10, 3.164)])
def test_nemenyi_q_matches_demsar_table(k, q):
    result = stats.nemenyi(pd.Series(np.arange(1.0, k + 1)), n_datasets=10)
    assert result.q_alpha == pytest.approx(q, abs=1e-3)
    assert result.critical_difference == pytest.approx(q * np.sqrt(k * (k + 1) / 60), abs=1e-3)


def test_nemenyi_from_scores_and_differs():
    scores = pd.DataFrame({"a": np.arange(20.0) + 10, "b": np.arange(20.0), "c": np.arange(20.0)})
    result = stats.nemenyi(scores)
    assert result.n_datasets == 20 and result.average_ranks["a"] == 1.0
    assert result.differs("a", "b") and not result.differs("b", "c")


def test_holm_matches_definition():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    expected = np.array([0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(stats.holm(p), expected)


# score tables: data sets x algorithms, accuracies on a coarse grid (many ties and zero
# differences) or in general position
score_tables = st.tuples(st.integers(3, 14), st.integers(2, 5)).flatmap(
    lambda shape: st.lists(st.lists(st.integers(70, 80), min_size=shape[1], max_size=shape[1]),
                           min_size=shape[0], max_size=shape[0])).map(
    lambda rows: pd.DataFrame(rows, columns=[f"m{j}" for j in range(len(rows[0]))]).astype(float))


@FAST
@given(table=score_tables, alpha=st.sampled_from([0.01, 0.05, 0.1]))
def test_pairwise_wilcoxon_holm_matches_scipy_and_statsmodels(table, alpha):
    pairs = stats.pairwise_wilcoxon_holm(table, alpha=alpha, method="normal")
    k = table.shape[1]
    assert len(pairs) == k * (k - 1) // 2
    oracle_p = []
    for _, row in pairs.iterrows():
        diff = table[row["first"]] - table[row["second"]]
        if np.count_nonzero(diff) == 0:
            oracle_p.append(1.0)
        else:
            oracle_p.append(scipy.stats.wilcoxon(table[row["first"]], table[row["second"]],
                                                 zero_method="pratt", method="asymptotic",
                                                 correction=False).pvalue)
        ranks = scipy.stats.rankdata(np.abs(diff))
        assert row["statistic"] == pytest.approx(ranks[diff > 0].sum())
        assert row["r_minus"] == pytest.approx(ranks[diff < 0].sum())
    np.testing.assert_allclose(pairs["pvalue"], oracle_p, rtol=1e-7, atol=1e-12)
    with mock.patch("gc.collect"):  # multipletests calls it every time: seconds in this process
        reject, adjusted = multitest.multipletests(oracle_p, alpha=alpha, method="holm")[:2]
    np.testing.assert_allclose(pairs["holm_pvalue"], adjusted, rtol=1e-7, atol=1e-12)
    assert list(pairs["reject"]) == list(reject)


# accuracies (%) of two methods on sets of different sizes: (test points, right by A, right by B)
accuracy_pairs = st.lists(st.sampled_from([50, 75, 150, 300, 600, 1000]).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(0, n))),
    min_size=2, max_size=14)


@FAST
@given(sets=accuracy_pairs, alternative=st.sampled_from(ALTERNATIVES))
def test_signed_rank_with_decimals_ties_equal_fractions(sets, alternative):
    """Rounded differences tie where the fractions are equal: the same test as on integers with
    the exact fractions' order, ties and signs (Fraction arithmetic as the oracle)."""
    exact = [Fraction(100 * a, n) - Fraction(100 * b, n) for n, a, b in sets]
    magnitudes = sorted(set(map(abs, exact)) | {0})
    as_integers = [int(np.sign(d)) * magnitudes.index(abs(d)) for d in exact]
    a = [100 * a / n for n, a, _ in sets]
    b = [100 * b / n for n, _, b in sets]
    rounded = stats.wilcoxon_signed_rank(a, b, alternative=alternative, method="exact",
                                         decimals=10)
    oracle = stats.wilcoxon_signed_rank(as_integers, alternative=alternative, method="exact")
    assert (rounded.statistic, rounded.r_minus, rounded.n_zero) == \
        (oracle.statistic, oracle.r_minus, oracle.n_zero)
    assert rounded.pvalue == pytest.approx(oracle.pvalue, rel=1e-12)


def test_float_differences_of_equal_fractions_need_the_rounding():
    """2 points as 1/50 - 0/50 and as 7/150 - 4/150 (in %): equal as fractions, 2.0 and
    2.0000000000000004 as floats; only the rounded differences tie."""
    a, b = [100 * 1 / 50, 100 * 4 / 150, 90.0], [0.0, 100 * 7 / 150, 80.0]
    assert stats.wilcoxon_signed_rank(a, b).r_minus == 2
    assert stats.wilcoxon_signed_rank(a, b, decimals=10).r_minus == 1.5
    pairs = stats.pairwise_wilcoxon_holm(pd.DataFrame({"a": a, "b": b}), decimals=10)
    assert (pairs["r_minus"].item(), pairs["median_difference"].item()) == (1.5, 2.0)


def test_pairwise_wilcoxon_holm_exact_without_ties_matches_scipy():
    rng = np.random.default_rng(7)
    table = pd.DataFrame(rng.normal(80, 3, (16, 4)) + np.arange(4) * [0, 0.5, 2, 4],
                         columns=list("abcd"))
    pairs = stats.pairwise_wilcoxon_holm(table)
    oracle = [scipy.stats.wilcoxon(table[f], table[s], method="exact").pvalue
              for f, s in zip(pairs["first"], pairs["second"])]
    np.testing.assert_allclose(pairs["pvalue"], oracle, rtol=1e-9)
    assert pairs.set_index(["first", "second"]).loc[("a", "d"), "reject"]


@settings(max_examples=30, deadline=None)
@given(table=score_tables, rope=st.sampled_from([0.5, 1.0, 2.0]),
       prior=st.sampled_from([0.5, 1.0]), seed=st.integers(0, 2**31 - 1))
def test_bayesian_signed_rank_posterior_equals_baycomp_draw_for_draw(table, rope, prior, seed):
    """On baycomp's own Dirichlet draws (RandomState(seed)), the posterior samples agree to
    rounding, ties and values on the ROPE's edge (H(0) = 1/2) included."""
    baycomp = pytest.importorskip("baycomp.multiple")
    a, b = table.iloc[:, 0].to_numpy(), table.iloc[:, 1].to_numpy()
    nsamples = 300
    # baycomp's difference is y - x: x = b, y = a puts "a better" on its right
    theirs = baycomp.SignedRankTest.sample(b, a, rope, prior=prior, nsamples=nsamples,
                                           random_state=seed)
    weights = np.random.RandomState(seed).dirichlet(np.r_[prior, np.ones(a.size)], nsamples)
    ours = stats.signed_rank_posterior(a - b, rope, weights)
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    np.testing.assert_allclose(ours.sum(axis=1), 1.0)
    assert (ours >= -1e-12).all()


@pytest.mark.parametrize("n, shift, prior", [(24, 0.0, 0.5), (24, 0.8, 0.5), (24, 3.0, 0.5),
                                             (4, 1.6, 0.5), (4, 1.6, 3.0)])
def test_bayesian_signed_rank_probabilities_agree_with_baycomp(n, shift, prior):
    """Different generators, so within Monte Carlo error (4 standard errors of a difference of
    two estimates at 50,000 draws); with 4 data sets the prior's weight on 0 matters."""
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(11)
    a = rng.normal(85, 6, n)
    b = a - shift + rng.normal(0, 1.0, n)
    ours = stats.bayesian_signed_rank(a, b, rope=1.0, prior=prior, seed=5)
    theirs = baycomp.SignedRankTest.probs(b, a, rope=1.0, prior=prior, random_state=5)
    assert (ours.p_b_better, ours.p_equivalent, ours.p_a_better) == pytest.approx(
        theirs, abs=4 * np.sqrt(2) * 0.5 / np.sqrt(50000))


@FAST
@given(table=score_tables, seed=st.integers(0, 1000))
def test_bayesian_signed_rank_is_seeded_and_antisymmetric(table, seed):
    a, b = table.iloc[:, 0], table.iloc[:, 1]
    first = stats.bayesian_signed_rank(a, b, rope=1.0, nsamples=2000, seed=seed)
    again = stats.bayesian_signed_rank(a, b, rope=1.0, nsamples=2000, seed=seed)
    swapped = stats.bayesian_signed_rank(b, a, rope=1.0, nsamples=2000, seed=seed)
    assert np.array_equal(first.samples, again.samples)
    assert first.p_a_better + first.p_equivalent + first.p_b_better == pytest.approx(1.0)
    np.testing.assert_allclose(swapped.samples, first.samples[:, ::-1], atol=1e-12)


def test_bayesian_signed_rank_clear_cases():
    base = np.linspace(70, 95, 20)
    assert stats.bayesian_signed_rank(base + 3, base).p_a_better == 1.0
    assert stats.bayesian_signed_rank(base, base + 3).p_b_better == 1.0
    assert stats.bayesian_signed_rank(base + 0.2, base).p_equivalent == 1.0


def test_pairwise_bayesian_signed_rank_rows():
    table = pd.DataFrame({"a": np.linspace(70, 95, 12), "b": np.linspace(70, 95, 12) + 3,
                          "c": np.linspace(70, 95, 12) + 0.1})
    pairs = stats.pairwise_bayesian_signed_rank(table, nsamples=5000).set_index(
        ["first", "second"])
    assert list(pairs.index) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert pairs.loc[("a", "b"), "p_second_better"] == 1.0
    assert pairs.loc[("a", "c"), "p_equivalent"] == 1.0
    assert pairs.loc[("b", "c"), "p_first_better"] == 1.0


@pytest.mark.parametrize("call, message", [
    (lambda: stats.wilcoxon_signed_rank([1, 2], [1, 2, 3]), "differ in length"),
    (lambda: stats.paired_t_test([1, np.nan], [1, 2]), "NaN"),
    (lambda: stats.paired_t_test([1], [2]), "at least 2 pairs"),
    (lambda: stats.wilcoxon_signed_rank([1, 2], method="bogus"), "choose one of"),
    (lambda: stats.friedman(np.ones((5, 1))), "at least 2 algorithms"),
    (lambda: stats.friedman(np.array([[1, np.nan], [1, 2]])), "NaN"),
    (lambda: stats.nemenyi([1.0, 2.0, 3.0]), "n_datasets"),
    (lambda: stats.holm([0.1, 1.5]), r"\[0, 1\]"),
    (lambda: stats.bayesian_signed_rank([1, 2], [1, 2], rope=-1), "rope"),
    (lambda: stats.pairwise_wilcoxon_holm(np.ones((5, 2)), alpha=2), "alpha"),
])
def test_bad_input_names_problem(call, message):
    with pytest.raises(ValueError, match=message):
        call()
