"""Independent replay of the bst14 Algorithm 1 and 2 known-answer vectors.

Written from docs/vectors/bst14.md, the vector JSON Schema (reference/vectors/schema.json) and the
paper (Bassily, Smith, Thakurta 2014: Algorithms 1 and 2, Sections II-III, Theorems II.1 and II.4)
alone. It shares no code with reference/ and imports
nothing from the project: only the Python standard library (json, math, pathlib) and pytest.
Every number except the inputs and the noise tape is recomputed here and compared with the
vector; sigma is derived for the "printed" and "rigorous" calibrations (replay step 3) and
taken from `derived` only for the numerical ones, as the replay steps prescribe.
"""
import json
import math
from pathlib import Path

import pytest

VECTOR_DIR = Path(__file__).resolve().parents[3] / "reference" / "vectors" / "bst14"
DERIVED_REL = 1e-13  # own double evaluation vs the vector's 50-digit values (docs/vectors: ~1e-15)


def load_alg1_vectors():
    out = []
    for path in sorted(VECTOR_DIR.glob("*.json")):
        vec = json.loads(path.read_text())
        if vec["algorithm"] == "bst14 Alg.1":
            out.append(pytest.param(path, id=path.stem))
    return out


# ---- constants (docs/vectors/bst14.md "Replaying Algorithm 1", steps 2-4; paper Alg. 1 line 1, Thm II.4) ----

def loss_constants(loss):
    name, b = loss["name"], loss["bounds"]
    if name == "Linear":
        return b["data_norm"], 0.0
    if name == "HalfSquaredDistance":
        return b["domain_radius"] + b["data_norm"], 1.0
    if name in ("Hinge", "Logistic"):
        return b["feature_norm"], 0.0
    raise ValueError("unknown loss " + name)


def printed_sigma(lip, n, eps, delta):
    return math.sqrt(32.0 * lip * lip * n * n * math.log(n / delta) * math.log(1.0 / delta)) / eps


def rigorous_sigma(lip, n, eps, delta):
    T = n * n - 1
    e2 = eps / (2.0 * math.sqrt(2.0 * T * math.log(2.0 / delta)))
    e1 = math.log(1.0 + n * math.expm1(e2))
    return 2.0 * math.sqrt(2.0) * lip * n * math.sqrt(math.log(5.0 * T / (2.0 * delta * n))) / e1


def diameter(domain):
    prm = domain["parameters"]
    if domain["name"] == "L2Ball":
        return 2.0 * prm["radius"]
    if domain["name"] == "Box":
        return math.sqrt(sum((u - l) ** 2 for l, u in zip(prm["lower"], prm["upper"])))
    raise ValueError("unknown domain " + domain["name"])


def learning_rate(t, schedule, n, p, lip, delta_sc, sigma, diam):
    if schedule == "lipschitz":
        return diam / math.sqrt(t * (n * n * lip * lip + p * sigma * sigma))
    if schedule == "strongly_convex":
        return 1.0 / (delta_sc * n * t)
    raise ValueError("unknown schedule " + schedule)


# ---- loss (sub)gradients and projections (replay step 6) ----

def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def gradient(name, theta, row):
    """(Sub)gradient of l(.; row) at theta; returns (g, at_kink)."""
    if name == "Linear":
        return [-d for d in row], False
    if name == "HalfSquaredDistance":
        return [th - d for th, d in zip(theta, row)], False
    x, y = row[:-1], row[-1]
    margin = y * dot(theta, x)
    if name == "Hinge":
        return ([-y * xi for xi in x] if margin < 1.0 else [0.0] * len(x)), margin == 1.0
    if name == "Logistic":
        return [-y * xi / (1.0 + math.exp(margin)) for xi in x], False
    raise ValueError("unknown loss " + name)


def project(domain, v):
    """Euclidean projection; returns (Pi_C(v), changed)."""
    prm = domain["parameters"]
    if domain["name"] == "L2Ball":
        rad, norm = prm["radius"], math.sqrt(dot(v, v))
        if norm <= rad:
            return list(v), False
        return [rad * x / norm for x in v], True
    if domain["name"] == "Box":
        w = [min(max(x, lo), hi) for x, lo, hi in zip(v, prm["lower"], prm["upper"])]
        return w, w != list(v)
    raise ValueError("unknown domain " + domain["name"])


# ---- the replayer ----

def replay_alg1(vec):
    """Replays Algorithm 1 from inputs + tape. Returns a dict of everything derived."""
    inp, par = vec["inputs"], vec["parameters"]
    data, theta_1 = inp["data"], inp["theta_1"]
    n, p, runs = len(data), len(theta_1[0]), par["runs"]
    T = n * n - 1
    lip, delta_sc = loss_constants(inp["loss"])
    if par["calibration"] == "printed":
        sigma = printed_sigma(lip, n, par["epsilon"], par["delta"])
    elif par["calibration"] == "rigorous":
        sigma = rigorous_sigma(lip, n, par["epsilon"], par["delta"])
    else:  # replay step 3: numerical calibrations, take derived.sigma
        sigma = vec["derived"]["sigma"]
    diam = diameter(inp["domain"])
    etas = [learning_rate(t, par["schedule"], n, p, lip, delta_sc, sigma, diam)
            for t in range(1, T + 1)]

    entries = vec["tape"]["entries"]
    pos = 0

    def take(label, kind, shape):
        nonlocal pos
        e = entries[pos]
        pos += 1
        assert (e["label"], e["kind"], e["shape"]) == (label, kind, shape), (pos - 1, e["label"])
        assert len(e["values"]) == math.prod(shape)
        return e

    thetas = [list(row) for row in theta_1]
    states = {}
    projected = kink = False
    for t in range(1, T + 1):
        idx = take("bst14 Alg.1 L4 index", "integers", [runs])
        assert idx["params"] == {"high": n}
        noise = take("bst14 Alg.1 L5 b_t", "normal", [runs, p])
        for r in range(runs):
            i = idx["values"][r]
            assert i == int(i) and 0 <= i < n
            g, at_kink = gradient(inp["loss"]["name"], thetas[r], data[int(i)])
            kink = kink or at_kink
            z = noise["values"][r * p:(r + 1) * p]
            G = [n * gj + sigma * zj for gj, zj in zip(g, z)]
            v = [th - etas[t - 1] * Gj for th, Gj in zip(thetas[r], G)]
            thetas[r], changed = project(inp["domain"], v)
            projected = projected or changed
        states[t] = [list(row) for row in thetas]
    return {"n": n, "p": p, "T": T, "lipschitz": lip, "strong_convexity": delta_sc,
            "sigma": sigma, "diameter": diam, "learning_rates": etas, "states": states,
            "output": states[T], "tape_used": pos, "projection_active": projected,
            "kink_hit": kink}


def close(got, want, absolute, relative):
    return abs(got - want) <= absolute + relative * abs(want)


def assert_matrix_close(got, want, tol, what):
    assert len(got) == len(want), what
    for r, (grow, wrow) in enumerate(zip(got, want)):
        assert len(grow) == len(wrow), what
        for j, (g, w) in enumerate(zip(grow, wrow)):
            assert close(g, w, tol["absolute"], tol["relative"]), (what, r, j, g, w)


# ---- the test ----

@pytest.mark.parametrize("path", load_alg1_vectors())
def test_replay_alg1_vector(path):
    vec = json.loads(path.read_text())
    res = replay_alg1(vec)
    der, par, tol = vec["derived"], vec["parameters"], vec["tolerance"]

    # derived sizes and constants
    assert (der["n"], der["p"], der["steps"]) == (res["n"], res["p"], res["T"])
    assert len(vec["inputs"]["theta_1"]) == par["runs"]
    assert der["lipschitz"] == res["lipschitz"]
    assert der["strong_convexity"] == res["strong_convexity"]
    assert close(res["diameter"], der["diameter"], 0.0, DERIVED_REL)
    assert close(res["sigma"], der["sigma"], 0.0, DERIVED_REL)
    if par["calibration"] == "printed":
        # the replay steps: the reference rounds the 50-digit value up to a double
        assert der["sigma"] >= res["sigma"] * (1.0 - 1e-15)
    assert len(der["learning_rates"]) == res["T"]
    for t, (got, want) in enumerate(zip(res["learning_rates"], der["learning_rates"]), 1):
        assert close(got, want, 0.0, DERIVED_REL), ("eta", t, got, want)

    # tape consumed exactly: 2 T entries, nothing left over
    assert res["tape_used"] == len(vec["tape"]["entries"]) == 2 * res["T"]

    # checkpoints: steps 1, 2, floor(T/2), T, each the iterate theta_{t+1}
    T = res["T"]
    steps = [c["step"] for c in vec["checkpoints"]]
    assert steps == sorted({1, 2, T // 2, T}), steps
    for c in vec["checkpoints"]:
        assert c["iterate"] == "theta_%d" % (c["step"] + 1)
        assert_matrix_close(res["states"][c["step"]], c["theta"], tol, c["iterate"])
    assert_matrix_close(res["output"], vec["output"]["theta"], tol, "output")

    # flags agree with what the replay observed
    flags = set(vec["flags"])
    assert ("projection-active" in flags) == res["projection_active"]
    assert ("subgradient" in flags) == (vec["inputs"]["loss"]["name"] == "Hinge")
    assert ("printed-calibration" in flags) == (par["calibration"] == "printed")
    assert ("rigorous-calibration" in flags) == (par["calibration"] == "rigorous")
    assert not res["kink_hit"] or "subgradient" in flags
    assert ("kink" in flags) == res["kink_hit"]


@pytest.mark.parametrize("path", load_alg1_vectors())
def test_vector_is_sensitive_to_the_gradient(path, monkeypatch):
    # A vector whose iterates are all clipped to the boundary would pass any gradient: a 0.1%
    # slip in the gradient must be caught by every Algorithm 1 vector.
    exact = gradient

    def slipped(name, theta, row):
        g, at_kink = exact(name, theta, row)
        return [1.001 * x for x in g], at_kink

    monkeypatch.setitem(globals(), "gradient", slipped)
    with pytest.raises(AssertionError):
        test_replay_alg1_vector(path)


def test_a_vector_hits_the_kink_exactly_once_and_tests_its_convention(monkeypatch):
    """bst14-alg1-hinge-ball-kink: the margins of the sampled records cross 1 and equal it at one
    step only, so the documented convention at the kink (subgradient 0) decides the output: a replay
    that takes -y x there (the other end of the subdifferential) misses the vector."""
    path = VECTOR_DIR / "bst14-alg1-hinge-ball-kink.json"
    vec = json.loads(path.read_text())
    margins = []
    exact = gradient

    def recording(name, theta, row):
        margins.append(row[-1] * dot(theta, row[:-1]))
        return exact(name, theta, row)

    monkeypatch.setitem(globals(), "gradient", recording)
    test_replay_alg1_vector(path)
    assert margins.count(1.0) == 1 and min(margins) < 1.0 < max(margins)
    assert min(abs(m - 1.0) for m in margins if m != 1.0) > 1e-3  # no near-ties that rounding could flip

    def other_convention(name, theta, row):
        x, y = row[:-1], row[-1]
        if name == "Hinge" and y * dot(theta, x) == 1.0:
            return [-y * xi for xi in x], True
        return exact(name, theta, row)

    monkeypatch.setitem(globals(), "gradient", other_convention)
    with pytest.raises(AssertionError):
        test_replay_alg1_vector(path)


# ---- Algorithm 2 (docs/vectors/bst14.md "Replaying Algorithm 2") ----

def load_alg2_vectors():
    return [pytest.param(p, id=p.stem) for p in sorted(VECTOR_DIR.glob("*.json"))
            if json.loads(p.read_text())["algorithm"] == "bst14 Alg.2"]


def replay_alg2(vec):
    """Rejection rounds of N(mean, I/(c n)) draws until each run lands in the ball; returns (outputs,
    the smallest distance of an attempt's norm to the radius)."""
    data, prm = vec["inputs"]["data"], vec["parameters"]
    assert vec["inputs"]["loss"]["name"] == "HalfSquaredDistance" and vec["inputs"]["domain"]["name"] == "L2Ball"
    n, p, runs = len(data), len(data[0]), prm["runs"]
    lip, _ = loss_constants(vec["inputs"]["loss"])
    radius = vec["inputs"]["domain"]["parameters"]["radius"]
    c = prm["epsilon"] / (2 * lip * 2 * radius)
    mean = [sum(row[j] for row in data) / n for j in range(p)]
    der = vec["derived"]
    assert close(der["coefficient"], c, 0.0, DERIVED_REL) and der["coefficient"] <= c * (1 + 1e-15)
    assert all(close(a, b, 1e-15, 0.0) for a, b in zip(der["mean"], mean))
    out, pending, margin = [None] * runs, list(range(runs)), math.inf
    for entry in vec["tape"]["entries"]:
        assert entry["label"] == "bst14 Alg.2 L2 quadratic: gaussian" and entry["kind"] == "normal"
        assert entry["shape"] == [len(pending), p]
        still = []
        for j, r in enumerate(pending):
            theta = [mean[i] + entry["values"][j * p + i] / math.sqrt(der["coefficient"] * n) for i in range(p)]
            norm = math.sqrt(dot(theta, theta))
            margin = min(margin, abs(norm - radius))
            if norm <= radius:
                out[r] = theta
            else:
                still.append(r)
        pending = still
    assert not pending, "the tape ends before every run is accepted"
    return out, margin


@pytest.mark.parametrize("path", load_alg2_vectors())
def test_replay_alg2_vector(path):
    vec = json.loads(path.read_text())
    out, margin = replay_alg2(vec)
    assert margin > 1e-3  # the tolerance's justification: acceptance decisions do not depend on rounding
    assert_matrix_close(out, vec["output"]["theta"], vec["tolerance"], "output")


def test_every_alg2_vector_rejects_a_draw():
    """The committed Algorithm 2 vector exercises a rejection (a run's first draw lands outside C)."""
    vec = json.loads(load_alg2_vectors()[0].values[0].read_text())
    assert len(vec["tape"]["entries"]) > 1
