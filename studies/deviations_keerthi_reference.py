"""An independent count of Keerthi et al. (2001)'s SMO kernel evaluations (docs/deviations.md).

gs-svm-pakdd2005 Table 1 prints the kernel evaluations of SMO-1 / SMO-2 (Keerthi, Shevade,
Bhattacharyya, Murthy 2001, Modifications 1 and 2) averaged over C. This script is a plain
re-statement of their published pseudo-code (Platt's outer loop, examineExample / takeStep, F_i
cached for I0 only, a bound sample's F_i recomputed from the support vectors), written for the
deviations page, not for speed: the kernel matrix is computed once and every entry the algorithm
asks for is counted (no cache), so the count is the paper's "number of kernel evaluations".

Three switches turn it into svmbench's smo_mod1 / smo_mod2 one at a time (an ablation; the solver
itself is not touched):
- ``--pass-order``: ``index`` walks the sample indices 0..n-1 in every pass (the pseudo-code);
  ``positions`` keeps svmbench's block layout [I0 | alpha = C | alpha = 0] (smo.py ``place``: a
  step moves a sample to its block by swaps with the block boundaries) and walks positions, so
  a step reorders what the pass has left to visit (smo.py ``next_examined``). Thresholds are
  taken over I0 in the pass's order, then i1, i2 where strictly better, in both.
- ``--step``: ``platt`` is Platt's takeStep (eta < 0: the clipped Newton step; otherwise the
  objective at both ends, eq. 19); ``libsvm`` is svmbench's (LIBSVM's pair solve with TAU for
  eta <= 0, both alphas snapped to the bounds).
- ``--count``: ``platt`` counts k11, k12, k22 per step that passes L < H and 2 per other member
  of I0 (the F cache); ``svmbench`` counts Q_12 for every pair tried (a refused pair costs one
  entry) and the rows of i1 and i2 over I0 per step. Both count n_SV for a bound sample examined.
- ``--no-snap``: leave the new alphas as the arithmetic gives them. By default both are snapped to
  a bound within 1e-12 C of it, as svmbench does (Platt's takeStep snaps a2 within 1e-8): an alpha
  an ulp inside the box counts as free, joins I0 and the thresholds, and steps on it are refused.

    PYTHONPATH=. python studies/deviations_keerthi_reference.py --dataset a1a --step platt libsvm
"""

import argparse
import time

import numpy as np
from _deviations import write_table
from numba import njit
from sklearn.metrics.pairwise import rbf_kernel

from svmbench.data import load_dataset
from svmbench.solvers.smo_step import max_violation, snap_to_bounds, solve_pair

GAMMA, TOL = 0.05, 1e-3
C_GRID = [2.0 ** k for k in range(-6, 11, 2)]  # svmbench/papers/gs2005/experiment/gs2005_table1.yaml


@njit(cache=True)
def in_i0(a, C):
    return 0.0 < a < C


@njit(cache=True)
def in_up(y, a, C):  # I0 u I1 u I2
    return (0.0 < a < C) or (y > 0 and a <= 0.0) or (y < 0 and a >= C)


@njit(cache=True)
def in_low(y, a, C):  # I0 u I3 u I4
    return (0.0 < a < C) or (y > 0 and a >= C) or (y < 0 and a <= 0.0)


# the three settings of the ablation (``keerthi``'s ``setting`` array)
BY_POSITION, LIBSVM_STEP, OUR_COUNT, SNAP = range(4)


@njit(cache=True)
def place(alpha, C, perm, where, ends, sample):
    """svmbench.solvers.smo.place on the position arrays: move ``sample`` into the block of its
    alpha, [I0 | alpha = C | alpha = 0] (ends[0], ends[1]: the ends of the first two), one block
    boundary at a time, swapping with the boundary position."""
    target = 2 if alpha[sample] <= 0.0 else (1 if alpha[sample] >= C else 0)
    p = where[sample]
    while True:
        current = 0 if p < ends[0] else (1 if p < ends[1] else 2)
        if current == target:
            return
        if current > target:
            q = ends[current - 1]
            ends[current - 1] += 1
        else:
            ends[current] -= 1
            q = ends[current]
        other = perm[q]
        perm[p], perm[q] = other, sample
        where[other], where[sample] = p, q
        p = q


@njit(cache=True)
def snapped(new1, new2, C, snap):
    """Both alphas put on a bound within BOUND_SNAP * C of it (smo_step.snap_to_bounds; Platt
    1998's takeStep snaps a2 within 1e-8), or as they are."""
    if not snap:
        return new1, new2
    return snap_to_bounds(new1, C), snap_to_bounds(new2, C)


@njit(cache=True)
def new_alphas(K, y, alpha, F, C, i1, i2, eps, libsvm_step, snap):
    """(alpha_1, alpha_2) after the step on (i1, i2); NaN when L >= H in Platt's step (found
    before any kernel entry)."""
    a1, a2 = alpha[i1], alpha[i2]
    y1, y2 = y[i1], y[i2]
    s = y1 * y2
    if s < 0:
        L, H = max(0.0, a2 - a1), min(C, C + a2 - a1)
    else:
        L, H = max(0.0, a1 + a2 - C), min(C, a1 + a2)
    if L >= H and not libsvm_step:
        return np.nan, np.nan
    k11, k12, k22 = K[i1, i1], K[i1, i2], K[i2, i2]
    if libsvm_step:  # svmbench's step: LIBSVM's pair solve (TAU when eta <= 0), snapped
        new1, new2 = solve_pair(a1, a2, y1 * F[i1], y2 * F[i2], y1, y2, k11, k22, s * k12, C)
        return snapped(new1, new2, C, snap)
    eta = 2.0 * k12 - k11 - k22
    if eta < 0.0:
        new2 = min(H, max(L, a2 - y2 * (F[i1] - F[i2]) / eta))
        return snapped(a1 + s * (a2 - new2), new2, C, snap)
    f1 = y1 * F[i1] - a1 * k11 - s * a2 * k12  # objective at both ends (Platt 1998, eq. 19)
    f2 = y2 * F[i2] - s * a1 * k12 - a2 * k22
    l1, h1 = a1 + s * (a2 - L), a1 + s * (a2 - H)
    lobj = l1 * f1 + L * f2 + 0.5 * l1 * l1 * k11 + 0.5 * L * L * k22 + s * L * l1 * k12
    hobj = h1 * f1 + H * f2 + 0.5 * h1 * h1 * k11 + 0.5 * H * H * k22 + s * H * h1 * k12
    new2 = L if lobj < hobj - eps else (H if lobj > hobj + eps else a2)
    return snapped(a1 + s * (a2 - new2), new2, C, snap)


@njit(cache=True)
def take_step(K, y, alpha, F, C, i1, i2, state, count, eps, setting, perm, where, ends):
    """Keerthi et al. 2001 takeStep (Platt's step; thresholds over I0 + {i1, i2}); 1 if moved."""
    if i1 == i2:
        return 0
    if setting[OUR_COUNT]:  # svmbench requests Q_12 before its progress test
        count[0] += 1
    a1, a2 = alpha[i1], alpha[i2]
    new1, new2 = new_alphas(K, y, alpha, F, C, i1, i2, eps, setting[LIBSVM_STEP],
                            setting[SNAP])
    if np.isnan(new2):
        return 0
    if not setting[OUR_COUNT]:  # Platt: k11, k12, k22
        count[0] += 3
    if abs(new2 - a2) < eps * (new2 + a2 + eps):
        return 0
    d1, d2 = y[i1] * (new1 - a1), y[i2] * (new2 - a2)
    n = y.shape[0]
    for i in range(n):  # the F cache over I0 (i1, i2 from k11, k12, k22)
        if in_i0(alpha[i], C):
            if setting[OUR_COUNT] or (i != i1 and i != i2):  # svmbench: rows of i1, i2 over I0
                count[0] += 2
            if i != i1 and i != i2:
                F[i] += d1 * K[i1, i] + d2 * K[i2, i]
    F[i1] += d1 * K[i1, i1] + d2 * K[i1, i2]
    F[i2] += d1 * K[i1, i2] + d2 * K[i2, i2]
    alpha[i1], alpha[i2] = new1, new2
    if setting[BY_POSITION]:
        place(alpha, C, perm, where, ends, i1)
        place(alpha, C, perm, where, ends, i2)
    b_up, b_low, i_up, i_low = np.inf, -np.inf, -1, -1
    for p in range(n + 2):  # I0 in the pass's order, then i1 and i2 where strictly better
        i = perm[p] if p < n else (i1 if p == n else i2)
        if in_i0(alpha[i], C) or p >= n:
            if in_up(y[i], alpha[i], C) and F[i] < b_up:
                b_up, i_up = F[i], i
            if in_low(y[i], alpha[i], C) and F[i] > b_low:
                b_low, i_low = F[i], i
    state[0], state[1] = b_up, b_low
    if i_up >= 0:
        state[2] = i_up
    if i_low >= 0:
        state[3] = i_low
    return 1


@njit(cache=True)
def examine(K, y, alpha, F, C, i2, state, count, eps, setting, perm, where, ends):
    """Keerthi et al. 2001 examineExample."""
    a2 = alpha[i2]
    if not in_i0(a2, C):  # F_i2 from the support vectors
        total = 0.0
        for j in range(y.shape[0]):
            if alpha[j] > 0.0:
                total += alpha[j] * y[j] * K[i2, j]
                count[0] += 1
        F[i2] = total - y[i2]
        if in_up(y[i2], a2, C) and F[i2] < state[0]:
            state[0], state[2] = F[i2], i2
        elif in_low(y[i2], a2, C) and F[i2] > state[1]:
            state[1], state[3] = F[i2], i2
    f2 = F[i2]
    i1 = -1
    if in_up(y[i2], a2, C) and state[1] - f2 > 2.0 * TOL:
        i1 = int(state[3])
    if in_low(y[i2], a2, C) and f2 - state[0] > 2.0 * TOL:
        i1 = int(state[2])
    if i1 < 0:
        return 0
    if in_i0(a2, C):
        i1 = int(state[3]) if state[1] - f2 > f2 - state[0] else int(state[2])
    return take_step(K, y, alpha, F, C, i1, i2, state, count, eps, setting, perm, where, ends)


@njit(cache=True)
def keerthi(K, y, C, modification, eps, setting):
    """(alpha, kernel evaluations) of Modification 1 or 2 from alpha = 0; ``eps``: the smallest
    relative change of alpha_2 a step makes (Platt's eps); ``setting``: BY_POSITION (passes walk
    svmbench's block positions instead of the indices), LIBSVM_STEP (svmbench's pair solve),
    OUR_COUNT (svmbench's counting: Q_12 per pair tried, the rows of i1, i2 over I0 per step)."""
    n = y.shape[0]
    alpha, F = np.zeros(n), -y.copy()
    count = np.zeros(1, dtype=np.int64)
    perm, where = np.arange(n), np.arange(n)  # sample at each position, position of each sample
    ends = np.zeros(2, dtype=np.int64)  # I0 = positions [0, ends[0]), alpha = C: [ends[0], ends[1])
    i_up, i_low = -1, -1
    for i in range(n):  # b_up = -1 at a sample of class +1, b_low = +1 at one of class -1
        if y[i] > 0 and i_up < 0:
            i_up = i
        if y[i] < 0 and i_low < 0:
            i_low = i
    state = np.array([-1.0, 1.0, float(i_up), float(i_low)])  # b_up, b_low, i_up, i_low
    changed, examine_all = 0, True
    while changed > 0 or examine_all:
        changed = 0
        if examine_all:
            cursor = 0  # perm[cursor] moves with the steps when BY_POSITION, else it is cursor
            while cursor < n:
                cursor += 1
                changed += examine(K, y, alpha, F, C, perm[cursor - 1], state, count, eps,
                                   setting, perm, where, ends)
        elif modification == 1:
            cursor = 0
            while cursor < (ends[0] if setting[BY_POSITION] else n):
                i = perm[cursor]
                cursor += 1
                if in_i0(alpha[i], C):
                    changed += examine(K, y, alpha, F, C, i, state, count, eps, setting, perm,
                                       where, ends)
                    if state[0] > state[1] - 2.0 * TOL:
                        changed = 0
                        break
        else:
            while state[0] <= state[1] - 2.0 * TOL:
                moved = take_step(K, y, alpha, F, C, int(state[2]), int(state[3]), state, count,
                                  eps, setting, perm, where, ends)
                changed += moved
                if moved == 0:
                    break
            changed = 0
        if examine_all:
            examine_all = False
        elif changed == 0:
            examine_all = True
    return alpha, count[0]


def dual_objective(K, y, alpha):
    v = alpha * y
    return 0.5 * v @ K @ v - alpha.sum()


def violation(K, y, alpha, C):
    """b_low - b_up at the returned alpha over every sample (F from K, not from the loop)."""
    gradient = y * (K @ (alpha * y)) - 1.0
    return max_violation(alpha, gradient, y, C, y.shape[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="a1a")
    parser.add_argument("--modifications", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--alpha-eps", type=float, default=1e-12,
                        help="Platt's eps: a step must change alpha_2 by this, relatively")
    parser.add_argument("--pass-order", nargs="+", choices=["index", "positions"],
                        default=["index", "positions"],
                        help="passes over the sample indices (the pseudo-code) or over "
                             "svmbench's block positions; one row each")
    parser.add_argument("--step", nargs="+", choices=["platt", "libsvm"], default=["platt"],
                        help="Platt's pair step or svmbench's (LIBSVM's solve, snapped)")
    parser.add_argument("--count", choices=["platt", "svmbench"], default="platt",
                        help="k11, k12, k22 per step, or svmbench's Q_12 per pair tried")
    parser.add_argument("--no-snap", action="store_true",
                        help="leave the stepped alphas unsnapped (an ulp inside the box stays free)")
    parser.add_argument("--out")
    args = parser.parse_args()
    data = load_dataset(args.dataset)
    X, y = data.X_train, np.asarray(data.y_train, dtype=float)
    K = rbf_kernel(X, gamma=GAMMA)
    started = time.time()
    lines = [("| variant | pass order | step | mean K2 (10^6) | K2 per C (10^6) | "
              "largest b_low - b_up | C above 2 tol | objective per C |"), "| --- " * 8 + "|"]
    for modification in args.modifications:
        for step in args.step:
            for order in args.pass_order:
                setting = np.array([order == "positions", step == "libsvm",
                                    args.count == "svmbench", not args.no_snap])
                counts, objectives, gaps = [], [], []
                for C in C_GRID:
                    alpha, count = keerthi(K, y, C, modification, args.alpha_eps, setting)
                    counts.append(count)
                    objectives.append(dual_objective(K, y, alpha))
                    gaps.append(violation(K, y, alpha, C))
                line = (f"| mod{modification} | {order} | {step} | {np.mean(counts) / 1e6:.3f} | "
                        f"{' '.join(f'{c / 1e6:.1f}' for c in counts)} | {max(gaps):.2g} | "
                        f"{sum(gap > 2 * TOL for gap in gaps)} of {len(gaps)} | "
                        f"{' '.join(f'{o:.7g}' for o in objectives)} |")
                print(line, flush=True)
                lines.append(line)
    write_table(lines, f"{args.dataset}, RBF gamma {GAMMA}, tol {TOL}, C = "
                f"{', '.join(f'{C:g}' for C in C_GRID)}, alpha eps {args.alpha_eps:g}, counting "
                f"{args.count}, {'no snapping' if args.no_snap else 'alphas snapped to the bounds'}; no cache (every entry asked for counts); the loops stop at b_low - b_up <= "
                f"2 tol = {2 * TOL:g}.", started, args.out)


if __name__ == "__main__":
    main()
