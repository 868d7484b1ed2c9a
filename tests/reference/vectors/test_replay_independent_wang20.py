"""Independent replay of the wang20 known-answer vectors (Algorithms 1-4).

Written from docs/vectors/wang20.md, the schema and the paper alone:
only the Python standard library (json, math, pathlib) and pytest; nothing of the project is imported.
Every number except the inputs and the tape is recomputed here and compared with the vector.
"""
import json
import math
from pathlib import Path

import pytest

VECTOR_DIR = Path(__file__).resolve().parents[3] / "reference" / "vectors" / "wang20"
C = 2 * math.sqrt(2) / 3
DERIVED_REL = 1e-13


def vectors(algorithm):
    out = []
    for path in sorted(VECTOR_DIR.glob("*.json")):
        if json.loads(path.read_text())["algorithm"] == algorithm:
            out.append(pytest.param(path, id=path.stem))
    return out


def close(got, want, tol):
    return abs(got - want) <= tol["absolute"] + tol["relative"] * abs(want)


def assert_rows(got, want, tol, what):
    assert len(got) == len(want), what
    for g_row, w_row in zip(got, want):
        assert len(g_row) == len(w_row), what
        for g, w in zip(g_row, w_row):
            assert close(g, w, tol), (what, g, w)


# ---- Algorithm 2 (docs/vectors/wang20.md "Replaying Algorithm 2") ----

def default_trim(n, t, a, b):
    return min(max(0, math.ceil(math.log(n * (b - a)) / t)), (n - 1) // 2)


def alg2_release(values, m, t, a, b):
    """(statistic, S) of Algorithm 2 steps 2-4 on a list of reals."""
    x = sorted(values)
    n = len(x)
    best = math.exp(-m * t) * (b - a)
    for k in range(m):
        spread = (x[n - m + k] - x[m - k - 1]) / (n - 2 * m)  # x_(n-m+1+k) - x_(m-k), 1-based
        best = max(best, math.exp(-k * t) * min(b - a, spread))
    middle = x[m:n - m]
    top = max(abs(v) for v in middle) or 1.0
    mean = sum(v / top for v in middle) / len(middle) * top
    return min(max(mean, a), b), best


@pytest.mark.parametrize("path", vectors("wang20 Alg.2"))
def test_replay_alg2(path):
    vec = json.loads(path.read_text())
    prm, der, tol = vec["parameters"], vec["derived"], vec["tolerance"]
    values = [row[0] for row in vec["inputs"]["data"]]
    a, b, eps = prm["mean_lower"], prm["mean_upper"], prm["epsilon"]
    t, s = eps * eps / 16, eps / 4
    m = prm["trim"] if "trim" in prm else default_trim(len(values), t, a, b)
    assert (der["trim"], der["n"]) == (m, len(values))
    assert close(der["dilation"], t, {"absolute": 0, "relative": DERIVED_REL})
    assert close(der["shift"], s, {"absolute": 0, "relative": DERIVED_REL})
    stat, bound = alg2_release(values, m, t, a, b)
    assert close(der["smooth_bound"], bound, {"absolute": 0, "relative": 1e-13}) and der["smooth_bound"] >= bound
    assert close(vec["checkpoints"][1]["theta"][0][0], stat, tol)
    (entry,) = vec["tape"]["entries"]
    assert entry["label"] == "wang20 Alg.2 L3 Y" and entry["kind"] == "normal" and entry["shape"] == [prm["runs"]]
    out = [[stat + bound / s * math.sinh(y)] for y in entry["values"]]
    assert_rows(out, vec["output"]["theta"], tol, "output")
    assert ("default-trim" in vec["flags"]) == ("trim" not in prm)


# ---- gradients, projection (docs/vectors/wang20.md "Replaying Algorithm 3/4") ----

def gradient(name, w, row):
    d = len(w)
    if name == "HeavyTailedHalfSquaredDistance":
        return [w[j] - row[j] for j in range(d)]
    x, y = row[:d], row[d]
    m = sum(wj * xj for wj, xj in zip(w, x))
    if name == "HeavyTailedLeastSquares":
        return [(m - y) * xj for xj in x]
    if name == "HeavyTailedLogistic":
        z = y * m
        sig = math.exp(-z) / (1 + math.exp(-z)) if z > 0 else 1 / (1 + math.exp(z))  # 1/(1 + exp(y m))
        return [-y * xj * sig for xj in x]
    raise ValueError(name)


def project(v, radius):
    norm = math.sqrt(sum(x * x for x in v))
    return list(v) if norm <= radius else [radius * x / norm for x in v]


def descend(vec, estimate, steps, eta, label):
    """Lines 2-6: returns (gradients, iterates) per step, runs x d each."""
    inp, prm = vec["inputs"], vec["parameters"]
    d, radius, runs = inp["domain"]["parameters"]["dim"], inp["domain"]["parameters"]["radius"], prm["runs"]
    entries = vec["tape"]["entries"]
    assert len(entries) == steps
    w = [[0.0] * d for _ in range(runs)]
    hist = []
    for t in range(steps):
        e = entries[t]
        assert e["label"] == label and e["kind"] == "normal" and e["shape"] == [runs, d]
        g_all, w_all = [], []
        for r in range(runs):
            grads = [gradient(inp["loss"]["name"], w[r], row) for row in inp["data"]]
            g = [estimate([gr[j] for gr in grads], e["values"][r * d + j]) for j in range(d)]
            w[r] = project([wj - eta * gj for wj, gj in zip(w[r], g)], radius)
            g_all.append(g)
            w_all.append(list(w[r]))
        hist.append((g_all, w_all))
    return hist


def check_checkpoints(vec, hist):
    tol = vec["tolerance"]
    for t, (g, w) in enumerate(hist):
        cg, cw = vec["checkpoints"][2 * t], vec["checkpoints"][2 * t + 1]
        assert (cg["iterate"], cw["iterate"]) == (f"g_{t}", f"w_{t + 1}")
        assert_rows(g, cg["theta"], tol, cg["iterate"])
        assert_rows(w, cw["theta"], tol, cw["iterate"])
    assert_rows(hist[-1][1], vec["output"]["theta"], tol, "output")


@pytest.mark.parametrize("path", vectors("wang20 Alg.3"))
def test_replay_alg3(path):
    vec = json.loads(path.read_text())
    prm, der = vec["parameters"], vec["derived"]
    n, d = len(vec["inputs"]["data"]), vec["inputs"]["domain"]["parameters"]["dim"]
    steps = math.ceil(prm["smoothness"] / prm["strong_convexity"] * math.log(n))
    lg = math.log(1 / prm["delta"])
    eps_tilde = math.sqrt(2 * lg + 2 * prm["epsilon"]) - math.sqrt(2 * lg)
    eps0 = eps_tilde / math.sqrt(d * steps)
    t, s = eps0 * eps0 / 16, eps0 / 4
    a, b = prm["mean_lower"], prm["mean_upper"]
    m = prm["trim"] if "trim" in prm else default_trim(n, t, a, b)
    assert der["steps"] == steps and der["trim"] == m
    for key, want in (("epsilon_tilde", eps_tilde), ("coordinate_epsilon", eps0), ("dilation", t), ("shift", s)):
        assert close(der[key], want, {"absolute": 0, "relative": 1e-12}), key

    def estimate(values, y):
        stat, bound = alg2_release(values, m, t, a, b)
        return stat + bound / s * math.sinh(y)

    check_checkpoints(vec, descend(vec, estimate, steps, 1 / prm["smoothness"], "wang20 Alg.3 L4 Y"))


# ---- Algorithm 4 (docs/vectors/wang20.md "Replaying Algorithm 4", step 4) ----

def npdf(z):
    return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


def smoothed(a, b):
    """E phi(X), X ~ N(a, b^2), replay step 4 (Simpson's rule on 4000 panels in case c)."""
    if b == 0:
        value = max(-C, min(C, a - a**3 / 6))
    else:
        vm, vp = (math.sqrt(2) - a) / b, (math.sqrt(2) + a) / b
        fm, fp = math.erfc(vm / math.sqrt(2)) / 2, math.erfc(vp / math.sqrt(2)) / 2
        if abs(a) + b <= 8:
            em, ep = math.exp(-vm * vm / 2), math.exp(-vp * vp / 2)
            r = math.sqrt(2 * math.pi)
            corr = (C * (fm - fp) - (a - a**3 / 6) * (fm + fp) + b * (1 - a * a / 2) * (ep - em) / r
                    + a * b * b / 2 * (fp + fm + (vp * ep + vm * em) / r)
                    + b**3 * ((2 + vm * vm) * em - (2 + vp * vp) * ep) / (6 * r))
            value = a * (1 - b * b / 2) - a**3 / 6 + corr
        else:
            k, lo, hi = 4000, -math.sqrt(2), math.sqrt(2)
            h = (hi - lo) / k
            total = 0.0
            for i in range(k + 1):
                u = lo + i * h
                weight = 1 if i in (0, k) else (4 if i % 2 else 2)
                total += weight * (u - u**3 / 6) * npdf((u - a) / b) / b
            value = C * (fm - fp) + total * h / 3
    return max(-C, min(C, value))


@pytest.mark.parametrize("path", vectors("wang20 Alg.4"))
def test_replay_alg4(path):
    vec = json.loads(path.read_text())
    prm, der = vec["parameters"], vec["derived"]
    n, d = len(vec["inputs"]["data"]), vec["inputs"]["domain"]["parameters"]["dim"]
    diameter = 2 * vec["inputs"]["domain"]["parameters"]["radius"]
    lg, lgp = math.log(1 / prm["delta"]), math.log(1 / prm["failure_probability"])
    rho = (math.sqrt(lg + prm["epsilon"]) - math.sqrt(lg)) ** 2
    if prm["schedule"] == "strongly_convex":
        steps = math.ceil(prm["smoothness"] / prm["strong_convexity"] * math.log(n))
    else:
        steps = math.ceil((diameter * math.sqrt(n * rho) / d) ** (2 / 3))
    s = math.sqrt(n * prm["second_moment"] / (2 * lgp))
    beta = prm.get("noise_precision", 2 * lgp)
    sigma = math.sqrt(steps * d * (4 * math.sqrt(2) * s / (3 * n)) ** 2 / (2 * rho))
    printed = 8 * prm["second_moment"] * d * steps / (9 * lgp * n * rho)
    assert der["steps"] == steps
    for key, want in (("epsilon_tilde", rho), ("truncation_scale", s), ("noise_precision", beta), ("sigma", sigma)):
        assert close(der[key], want, {"absolute": 0, "relative": 1e-12}), key
    assert close(sigma * sigma, printed, {"absolute": 0, "relative": 1e-12})

    def estimate(values, z):
        terms = [smoothed(x / s, abs(x) / (s * math.sqrt(beta))) for x in values]
        return s * sum(terms) / len(terms) + sigma * z

    check_checkpoints(vec, descend(vec, estimate, steps, 1 / prm["smoothness"], "wang20 Alg.4 L3 Z"))


# ---- Algorithm 1 (docs/vectors/wang20.md "Replaying Algorithm 1") ----

ROUND_UP = 1.0 + 16 * 2.0 ** -53


def dist(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


@pytest.mark.parametrize("path", vectors("wang20 Alg.1"))
def test_replay_alg1(path):
    vec = json.loads(path.read_text())
    data, prm, der = vec["inputs"]["data"], vec["parameters"], vec["derived"]
    assert vec["inputs"]["loss"]["name"] == "HeavyTailedHalfSquaredDistance"
    assert prm["block_function"] == "projected_mean" and prm["runs"] == 1
    n, d, m, eps, delta = len(data), len(data[0]), prm["subsets"], prm["epsilon"], prm["delta"]
    radius = vec["inputs"]["domain"]["parameters"]["radius"]
    # step 1: the constants
    s = math.isqrt(m)
    gamma = eps / (5 * math.sqrt(2 * math.log(2 / delta)))
    beta = eps / (4 * (d + math.log(2 / delta)))
    b, t0 = n // m, (m + s) // 2 + 1
    big_k, cap = (m - t0) // s, 2 * radius
    assert (der["multiplicity"], der["block_size"], der["attention_rank"], der["last_shift"]) == (s, b, t0, big_k)
    assert der["radius_cap"] == cap
    for key, value in (("shift", gamma), ("dilation", beta), ("noise_multiplier", 1 / gamma)):
        assert abs(der[key] - value) <= DERIVED_REL * value, key
    # step 2: rounds of m uniform entries until no record is in more than s subsets
    entries, k, rounds = vec["tape"]["entries"], 0, 0
    while True:
        subsets = []
        for _ in range(m):
            e = entries[k]
            k += 1
            assert (e["label"], e["kind"], e["shape"]) == ("wang20 Alg.1 L2 subset", "uniform", [1, n])
            order = sorted(range(n), key=lambda i: (e["values"][i], i))
            subsets.append(order[:b])
            gaps = sorted(e["values"])
            assert min(v - u for u, v in zip(gaps, gaps[1:])) > 0  # no ties: the subsets are exact
        rounds += 1
        counts = [sum(i in sub for sub in subsets) for i in range(n)]
        if max(counts) <= s:
            break
    assert der["redraws"] == rounds - 1
    # step 3: projected block means
    z = [project([sum(data[i][j] for i in sub) / b for j in range(d)], radius) for sub in subsets]
    tol = vec["tolerance"]
    stored = {c["iterate"]: c["theta"] for c in vec["checkpoints"]}
    assert_rows(z, stored["z"], tol, "z")
    # step 4: the centre of attention
    r = [sorted(dist(zi, zj) for zj in z) for zi in z]  # r[i][t - 1] = r_i(t), r_i(1) = 0
    at_t0 = [ri[t0 - 1] for ri in r]
    star = at_t0.index(min(at_t0))
    assert sorted(at_t0)[1] - sorted(at_t0)[0] > 1e-9 or at_t0.count(min(at_t0)) > 1  # argmin not a near-tie
    g = z[star]
    assert_rows([g], stored["g"], tol, "g")
    # step 5: the smooth bound
    bound = 2 * cap * math.exp(-beta * big_k)
    for kk in range(big_k):
        t, j = t0 + (kk + 1) * s, (kk + 1) * s + 1
        radius_j = sorted(min(ri[t - 1], cap) for ri in r)[j - 1]
        bound = max(bound, math.exp(-beta * kk) * 2 * radius_j)
    bound *= ROUND_UP
    assert_rows([[bound]], stored["S"], tol, "S")
    # step 6: the release
    u = entries[k]
    assert (u["label"], u["kind"], u["shape"]) == ("wang20 Alg.1 L6 u", "normal", [1, d]) and k + 1 == len(entries)
    theta = [gj + bound * der["noise_multiplier"] * ROUND_UP * uj for gj, uj in zip(g, u["values"])]
    assert_rows([theta], vec["output"]["theta"], tol, "output")
