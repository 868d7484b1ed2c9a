"""Independent replay of the zhang17 known-answer vectors (Algorithms 1 and 2).

Written from docs/vectors/zhang17.md, the vector JSON Schema and the
paper (Zhang, Zheng, Mou and Wang 2017: Algorithms 1-2, Lemmas 2-3, Theorems 2, 3 and 5) alone. It
shares no code with reference/ or spec/ and imports nothing from the project: only the Python
standard library (json, math, pathlib) and pytest. Every number except the inputs, the noise tape
and the analytic sigma (a numerical root, replay step A6) is recomputed here and compared.
"""
import json
import math
from pathlib import Path

import pytest

VECTOR_DIR = Path(__file__).resolve().parents[3] / "reference" / "vectors" / "zhang17"
DERIVED_REL = 1e-13  # own double evaluation against the vector's 50-digit values rounded once


def load(algorithm):
    out = []
    for path in sorted(VECTOR_DIR.glob("*.json")):
        if json.loads(path.read_text())["algorithm"] == algorithm:
            out.append(pytest.param(path, id=path.stem))
    return out


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


# ---- losses: constants (replay steps A2 / B1), gradients, the value at 0 (B1)

def constants(loss):
    """(L, beta, mu, domain_radius or None)."""
    name, b = loss["name"], loss["bounds"]
    if name == "Regularised":
        lb, bb, mb, _ = constants(loss["loss"])
        lam, r = loss["regulariser"]["bounds"]["strength"], b["domain_radius"]
        return lb + lam * r, bb + lam, mb + lam, r
    if name == "Logistic":
        return b["feature_norm"], b["feature_norm"] ** 2 / 4, 0.0, None
    if name == "LeastSquares":
        x, y, r = b["feature_norm"], b["label_bound"], b["domain_radius"]
        return x * (r * x + y), x * x, 0.0, r
    if name == "Welsch":
        return b["scale"] / math.sqrt(2 * math.e), 1.0, 0.0, None
    if name == "Sigmoid":
        return b["feature_norm"] / 4, b["feature_norm"] ** 2 / (6 * math.sqrt(3)), 0.0, None
    raise ValueError("unknown loss " + name)


def gradient(loss, w, row):
    name = loss["name"]
    if name == "Regularised":
        lam = loss["regulariser"]["bounds"]["strength"]
        return [g + lam * wj for g, wj in zip(gradient(loss["loss"], w, row), w)]
    if name == "Welsch":
        c = loss["bounds"]["scale"]
        diff = [wj - dj for wj, dj in zip(w, row)]
        weight = math.exp(-dot(diff, diff) / (c * c))
        return [weight * v for v in diff]
    x, y = row[:-1], row[-1]
    if name == "Logistic":
        return [-y * xi / (1.0 + math.exp(y * dot(w, x))) for xi in x]
    if name == "LeastSquares":
        r = dot(w, x) - y
        return [r * xi for xi in x]
    if name == "Sigmoid":
        s = 1.0 / (1.0 + math.exp(y * dot(w, x)))
        return [-y * s * (1 - s) * xi for xi in x]
    raise ValueError("unknown loss " + name)


def value_at_zero(loss):
    name, b = loss["name"], loss["bounds"]
    if name == "Logistic":
        return math.log(2)
    if name == "LeastSquares":
        return b["label_bound"] ** 2 / 2
    if name == "Sigmoid":
        return 0.5
    if name == "Welsch":
        c, big_b = b["scale"], b["data_norm"]
        return c * c / 2 * (1 - math.exp(-big_b * big_b / (c * c)))
    raise ValueError("unknown loss " + name)


def close(got, want, absolute, relative):
    return abs(got - want) <= absolute + relative * abs(want)


def assert_matrix_close(got, want, tol, what):
    assert len(got) == len(want), what
    for r, (g_row, w_row) in enumerate(zip(got, want)):
        assert len(g_row) == len(w_row), what
        for j, (g, w) in enumerate(zip(g_row, w_row)):
            assert close(g, w, tol["absolute"], tol["relative"]), (what, r, j, g, w)


class Tape:
    def __init__(self, entries):
        self.entries, self.pos = entries, 0

    def take(self, label, kind, shape, params=None):
        e = self.entries[self.pos]
        self.pos += 1
        assert (e["label"], e["kind"], e["shape"]) == (label, kind, shape), (self.pos - 1, e["label"])
        if params is not None:
            assert e["params"] == params
        assert len(e["values"]) == math.prod(shape)
        return e["values"]


# ---- Algorithm 1 (replay steps A1-A8)

def replay_alg1(vec):
    inp, par = vec["inputs"], vec["parameters"]
    data, loss = inp["data"], inp["loss"]
    n, p, runs = len(data), len(data[0]) - 1, par["runs"]
    eps, delta = par["epsilon"], par["delta"]
    lip, beta, mu, radius = constants(loss)
    strongly = par.get("setting", "strongly_convex" if mu > 0 else "convex") == "strongly_convex"
    tight = par.get("sensitivity_formula", "sensitivity") == "sensitivity_tight"
    # A3: D
    if "minimiser_norm" in par:
        big_d = par["minimiser_norm"]
    else:
        lam = loss["regulariser"]["bounds"]["strength"]
        big_d = math.sqrt(2 * value_at_zero(loss["loss"]) / lam)
        if loss["loss"]["name"] == "Logistic":  # constants on all of R^p: the first-order bound too
            big_d = min(big_d, loss["loss"]["bounds"]["feature_norm"] / lam)
    if strongly and radius is not None:
        assert 2 * big_d <= radius
    # A4: eta, T, Delta
    if strongly:
        eta = 1 / (mu + beta)
        sens = (2 if tight else 5) * lip * (mu + beta) / (n * mu * beta)
        ez2 = p * (p + 1) * sens**2 / eps**2 if delta == 0 else 2 * p * math.log(2 / delta) * sens**2 / eps**2
        q2 = (mu * mu + beta * beta) / (mu + beta) ** 2
        steps = par.get("steps") or math.ceil(max(1.0, math.log(big_d**2 / ez2) / math.log(1 / q2)))
    else:
        eta = 1 / beta
        denom = 9 * lip**2 * p * (p + 1) if delta == 0 else 18 * lip**2 * p * math.log(2 / delta)
        t_star = (beta**2 * n**2 * eps**2 * big_d**2 / denom) ** (1 / 3)
        steps = par.get("steps") or math.ceil(max(1.0, t_star))
        sens = (2 if tight else 3) * lip * steps / (beta * n)
    # A5: gradient descent from 0
    w = [0.0] * p
    iterates = []
    for _ in range(steps):
        g = [0.0] * p
        for row in data:
            g = [a + b for a, b in zip(g, gradient(loss, w, row))]
        w = [wj - eta / n * gj for wj, gj in zip(w, g)]
        iterates.append(list(w))
    # A6-A7: the noise
    tape = Tape(vec["tape"]["entries"])
    noise = []
    if delta == 0:
        rate = eps / sens
        radii = tape.take("zhang17 Alg.1 L5 z: radius", "gamma", [runs], {"k": float(p)})
        direction = tape.take("zhang17 Alg.1 L5 z: direction", "normal", [runs, p])
        for r in range(runs):
            u = direction[r * p:(r + 1) * p]
            norm = math.sqrt(dot(u, u))
            noise.append([radii[r] / rate * uj / norm for uj in u])
        scale = {"rate": rate}
    else:
        if par.get("calibration", "printed") == "printed":
            sigma = math.sqrt(2 * math.log(2 / delta)) * sens / eps
        else:  # analytic: a numerical root of the exact Gaussian profile; take derived.sigma
            sigma = vec["derived"]["sigma"]
        z = tape.take("zhang17 Alg.1 L7 z", "normal", [runs, p])
        noise = [[sigma * z[r * p + j] for j in range(p)] for r in range(runs)]
        scale = {"sigma": sigma}
    assert tape.pos == len(tape.entries)
    out = [[wj + zj for wj, zj in zip(w, zr)] for zr in noise]
    derived = {"n": n, "p": p, "lipschitz": lip, "smoothness": beta, "strong_convexity": mu, "minimiser_norm": big_d,
               "learning_rate": eta, "steps": steps, "sensitivity": sens, "gradient_evaluations": n * steps, **scale}
    return derived, iterates, noise, out


@pytest.mark.parametrize("path", load("zhang17 Alg.1"))
def test_replay_alg1_vector(path):
    vec = json.loads(path.read_text())
    derived, iterates, noise, out = replay_alg1(vec)
    for key, value in derived.items():
        assert close(value, vec["derived"][key], 0.0, DERIVED_REL), (key, value, vec["derived"][key])
    tol = vec["tolerance"]
    cps = vec["checkpoints"]
    assert [c["iterate"] for c in cps] == ["w_%d" % t for t in range(1, derived["steps"] + 1)] + ["z"]
    for c in cps[:-1]:
        assert_matrix_close([iterates[c["step"] - 1]], c["theta"], tol, c["iterate"])
    assert cps[-1]["step"] == 9
    assert_matrix_close(noise, cps[-1]["theta"], tol, "z")
    assert_matrix_close(out, vec["output"]["theta"], tol, "output")
    flags = set(vec["flags"])
    assert ("radial-noise" in flags) == (vec["parameters"]["delta"] == 0) != ("gaussian-noise" in flags)
    assert ("tight-sensitivity" in flags) == (vec["parameters"].get("sensitivity_formula") == "sensitivity_tight")


# ---- Algorithm 2 (replay steps B1-B4)

def replay_alg2(vec):
    inp, par = vec["inputs"], vec["parameters"]
    data, loss = inp["data"], inp["loss"]
    n, runs = len(data), par["runs"]
    p = len(data[0]) - (0 if loss["name"] == "Welsch" else 1)
    eps, delta = par["epsilon"], par["delta"]
    lip, beta, _, _ = constants(loss)
    h0 = value_at_zero(loss)
    sigma_z = math.sqrt(4 * lip**2 * math.log(3 * n / delta) * math.log(2 / delta)) / eps
    proxy = math.sqrt(4 * lip**2 + p * sigma_z**2)
    eta = min(1 / beta, math.sqrt(2 * h0 / beta) / (proxy * n))
    tape = Tape(vec["tape"]["entries"])
    rounds = [int(v) + 1 for v in tape.take("zhang17 Alg.2 L1 R", "integers", [runs], {"high": n * n})]
    w = [[0.0] * p for _ in range(runs)]
    states = {}
    for t in range(max(rounds)):
        idx = tape.take("zhang17 Alg.2 L3 xi", "integers", [runs], {"high": n})
        z = tape.take("zhang17 Alg.2 L4 z_t", "normal", [runs, p])
        for r in range(runs):
            if t < rounds[r]:
                g = gradient(loss, w[r], data[int(idx[r])])
                w[r] = [wj - eta * (gj + sigma_z * z[r * p + j]) for j, (wj, gj) in enumerate(zip(w[r], g))]
        states[t + 1] = [list(row) for row in w]
    assert tape.pos == len(tape.entries)
    derived = {"n": n, "p": p, "lipschitz": lip, "smoothness": beta, "initial_gap": h0, "sigma": sigma_z,
               "learning_rate": eta, "max_rounds": n * n}
    return derived, rounds, states, w


@pytest.mark.parametrize("path", load("zhang17 Alg.2"))
def test_replay_alg2_vector(path):
    vec = json.loads(path.read_text())
    derived, rounds, states, out = replay_alg2(vec)
    for key, value in derived.items():
        assert close(value, vec["derived"][key], 0.0, DERIVED_REL), (key, value, vec["derived"][key])
    assert rounds == vec["derived"]["rounds"]
    tol = vec["tolerance"]
    top = max(rounds)
    assert [c["step"] for c in vec["checkpoints"]] == sorted({1, max(1, top // 2), top})
    for c in vec["checkpoints"]:
        assert c["iterate"] == "w_%d" % c["step"]
        assert_matrix_close(states[c["step"]], c["theta"], tol, c["iterate"])
    assert_matrix_close(out, vec["output"]["theta"], tol, "output")


@pytest.mark.parametrize("path", load("zhang17 Alg.1") + load("zhang17 Alg.2"))
def test_vector_is_sensitive_to_the_gradient(path, monkeypatch):
    # a 0.1% slip in every gradient must be caught by every vector
    exact = gradient

    def slipped(loss, w, row):
        return [1.001 * g for g in exact(loss, w, row)]

    monkeypatch.setitem(globals(), "gradient", slipped)
    test = test_replay_alg1_vector if "alg1" in path.name else test_replay_alg2_vector
    with pytest.raises(AssertionError):
        test(path)
