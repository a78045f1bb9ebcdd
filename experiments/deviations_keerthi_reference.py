"""An independent count of Keerthi et al. (2001)'s SMO kernel evaluations (docs/deviations.md).

gs-svm-pakdd2005 Table 1 prints the kernel evaluations of SMO-1 / SMO-2 (Keerthi, Shevade,
Bhattacharyya, Murthy 2001, Modifications 1 and 2) averaged over C. This script is a plain
re-statement of their published pseudo-code (Platt's outer loop over the samples in INDEX order,
examineExample / takeStep, F_i cached for I0 only, a bound sample's F_i recomputed from the
support vectors), written for the deviations page, not for speed: the kernel matrix is computed
once and every entry the algorithm asks for is counted (no cache), so the count is the paper's
"number of kernel evaluations". It differs from svmbench's smo_mod1/smo_mod2 in the order of the
passes: svmbench keeps its positions in blocks [I0 | alpha = C | alpha = 0] and its pass over all
samples walks positions, which steps move; here a pass walks sample indices 0..n-1 as the
pseudo-code does. Counted: 3 entries per takeStep that computes k11, k12, k22 (Platt), 2 per
member of I0 for the F cache update, n_SV for a bound sample examined.

    PYTHONPATH=. python experiments/deviations_keerthi_reference.py --dataset a1a
"""

import argparse
import time

import numpy as np
from _deviations import write_table
from numba import njit
from sklearn.metrics.pairwise import rbf_kernel

from svmbench.data import load_dataset

GAMMA, TOL = 0.05, 1e-3
C_GRID = [2.0 ** k for k in range(-6, 11, 2)]  # conf/experiment/gs2005_table1.yaml


@njit(cache=True)
def in_i0(a, C):
    return 0.0 < a < C


@njit(cache=True)
def in_up(y, a, C):  # I0 u I1 u I2
    return (0.0 < a < C) or (y > 0 and a <= 0.0) or (y < 0 and a >= C)


@njit(cache=True)
def in_low(y, a, C):  # I0 u I3 u I4
    return (0.0 < a < C) or (y > 0 and a >= C) or (y < 0 and a <= 0.0)


@njit(cache=True)
def take_step(K, y, alpha, F, C, i1, i2, state, count, eps):
    """Keerthi et al. 2001 takeStep (Platt's step; thresholds over I0 + {i1, i2}); 1 if moved."""
    if i1 == i2:
        return 0
    a1, a2 = alpha[i1], alpha[i2]
    y1, y2 = y[i1], y[i2]
    s = y1 * y2
    if s < 0:
        L, H = max(0.0, a2 - a1), min(C, C + a2 - a1)
    else:
        L, H = max(0.0, a1 + a2 - C), min(C, a1 + a2)
    if L >= H:
        return 0
    k11, k12, k22 = K[i1, i1], K[i1, i2], K[i2, i2]
    count[0] += 3
    eta = 2.0 * k12 - k11 - k22
    if eta < 0.0:
        new2 = min(H, max(L, a2 - y2 * (F[i1] - F[i2]) / eta))
    else:  # objective at both ends (Platt 1998, eq. 19)
        f1 = y1 * F[i1] - a1 * k11 - s * a2 * k12
        f2 = y2 * F[i2] - s * a1 * k12 - a2 * k22
        l1, h1 = a1 + s * (a2 - L), a1 + s * (a2 - H)
        lobj = l1 * f1 + L * f2 + 0.5 * l1 * l1 * k11 + 0.5 * L * L * k22 + s * L * l1 * k12
        hobj = h1 * f1 + H * f2 + 0.5 * h1 * h1 * k11 + 0.5 * H * H * k22 + s * H * h1 * k12
        new2 = L if lobj < hobj - eps else (H if lobj > hobj + eps else a2)
    if abs(new2 - a2) < eps * (new2 + a2 + eps):
        return 0
    new1 = a1 + s * (a2 - new2)
    d1, d2 = y1 * (new1 - a1), y2 * (new2 - a2)
    n = y.shape[0]
    for i in range(n):  # the F cache over I0 (i1, i2 from k11, k12, k22)
        if i != i1 and i != i2 and in_i0(alpha[i], C):
            F[i] += d1 * K[i1, i] + d2 * K[i2, i]
            count[0] += 2
    F[i1] += d1 * k11 + d2 * k12
    F[i2] += d1 * k12 + d2 * k22
    alpha[i1], alpha[i2] = new1, new2
    b_up, b_low, i_up, i_low = np.inf, -np.inf, -1, -1
    for i in range(n):
        if in_i0(alpha[i], C) or i == i1 or i == i2:
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
def examine(K, y, alpha, F, C, i2, state, count, eps):
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
    return take_step(K, y, alpha, F, C, i1, i2, state, count, eps)


@njit(cache=True)
def keerthi(K, y, C, modification, eps):
    """(alpha, kernel evaluations) of Modification 1 or 2 from alpha = 0; ``eps``: the smallest
    relative change of alpha_2 a step makes (Platt's eps)."""
    n = y.shape[0]
    alpha, F = np.zeros(n), -y.copy()
    count = np.zeros(1, dtype=np.int64)
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
            for i in range(n):
                changed += examine(K, y, alpha, F, C, i, state, count, eps)
        elif modification == 1:
            for i in range(n):
                if in_i0(alpha[i], C):
                    changed += examine(K, y, alpha, F, C, i, state, count, eps)
                    if state[0] > state[1] - 2.0 * TOL:
                        changed = 0
                        break
        else:
            while state[0] <= state[1] - 2.0 * TOL:
                moved = take_step(K, y, alpha, F, C, int(state[2]), int(state[3]), state, count,
                                  eps)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="a1a")
    parser.add_argument("--modifications", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--alpha-eps", type=float, default=1e-12,
                        help="Platt's eps: a step must change alpha_2 by this, relatively")
    parser.add_argument("--out")
    args = parser.parse_args()
    data = load_dataset(args.dataset)
    X, y = data.X_train, np.asarray(data.y_train, dtype=float)
    K = rbf_kernel(X, gamma=GAMMA)
    started = time.time()
    lines = ["| variant | mean K2 (10^6) | K2 per C (10^6) | objective per C |",
             "| --- | --- | --- | --- |"]
    for modification in args.modifications:
        counts, objectives = [], []
        for C in C_GRID:
            alpha, count = keerthi(K, y, C, modification, args.alpha_eps)
            counts.append(count)
            objectives.append(dual_objective(K, y, alpha))
        line = (f"| mod{modification} (index order) | {np.mean(counts) / 1e6:.3f} | "
                f"{' '.join(f'{c / 1e6:.1f}' for c in counts)} | "
                f"{' '.join(f'{o:.4g}' for o in objectives)} |")
        print(line, flush=True)
        lines.append(line)
    write_table(lines, f"{args.dataset}, RBF gamma {GAMMA}, tol {TOL}, C = "
                f"{', '.join(f'{C:g}' for C in C_GRID)}, alpha eps {args.alpha_eps:g}; no cache "
                "(every entry asked for counts).", started, args.out)

if __name__ == "__main__":
    main()
