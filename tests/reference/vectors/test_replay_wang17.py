"""Independent replay of the wang17 known-answer vectors: DP-SVRG, DP-SVRG++, DP-GD, DP-AccMD on the l2
ball, and the p-norm mirror steps of DP-AccMD on the l1 ball.

Written from docs/vectors/wang17.md, the vector JSON Schema and the paper (Wang, Ye, Xu 2017:
Algorithms 1-4) alone. It shares no code with reference/ and
imports nothing from the project: only the Python standard library (json, math, pathlib) and
pytest. Everything but the inputs and the tape is recomputed here; sigma is derived from the zCDP
closed form for DP-GD and DP-AccMD and taken from ``derived`` for DP-SVRG (a numerical
accountant calibration), whose implied constant is recomputed from it.
"""
import json
import math
from pathlib import Path

import pytest

VECTOR_DIR = Path(__file__).resolve().parents[3] / "reference" / "vectors" / "wang17"
DERIVED_REL = 1e-13  # own double evaluation against the vector's 50-digit values rounded once


def _vectors(algorithm, where=lambda v: True):
    out = []
    for path in sorted(VECTOR_DIR.glob("*.json")):
        vec = json.loads(path.read_text())
        if vec["algorithm"] == algorithm and where(vec):
            out.append(pytest.param(path, id=path.stem))
    return out


# ---- losses (docs/vectors/wang17.md "Losses") ----

def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def constants(loss):
    """(G, L) from the declared bounds."""
    name, b = loss["name"], loss["bounds"]
    if name == "Huber":
        return b["feature_norm"], b["feature_norm"] ** 2 / b["width"]
    if name == "PseudoHuberDistance":
        return b["lipschitz"], b["lipschitz"] / b["width"]
    if name == "WelschDistance":
        return b["lipschitz"], b["lipschitz"] * math.sqrt(math.e) / b["width"]
    raise ValueError("unknown loss " + name)


def gradient(loss, theta, row):
    name, b = loss["name"], loss["bounds"]
    if name == "Huber":
        x, y = row[:-1], row[-1]
        s = dot(x, theta) - y
        h = min(1.0, max(-1.0, s / b["width"]))
        return [h * xi for xi in x]
    u = [t - d for t, d in zip(theta, row)]
    uu = dot(u, u)
    if name == "PseudoHuberDistance":
        c = b["lipschitz"] / math.sqrt(b["width"] ** 2 + uu)
    elif name == "WelschDistance":
        w = b["width"]
        a = b["lipschitz"] * w * math.sqrt(math.e)
        c = a / w ** 2 * math.exp(-uu / (2 * w * w))
    else:
        raise ValueError("unknown loss " + name)
    return [c * ui for ui in u]


def full_gradient(loss, theta, data):
    grads = [gradient(loss, theta, row) for row in data]
    return [sum(g[j] for g in grads) / len(data) for j in range(len(theta))]


def zcdp_sigma(lip, n, steps, eps, delta):
    lg = math.log(1.0 / delta)
    return math.sqrt(2.0) * lip * math.sqrt(steps) * (math.sqrt(eps + lg) + math.sqrt(lg)) / (eps * n)


class Tape:
    def __init__(self, vec):
        self.entries, self.pos = vec["tape"]["entries"], 0

    def take(self, label, kind, shape, params=None):
        e = self.entries[self.pos]
        self.pos += 1
        assert (e["label"], e["kind"], e["shape"]) == (label, kind, shape), (self.pos - 1, e["label"])
        assert len(e["values"]) == math.prod(shape)
        if params is not None:
            assert e["params"] == params
        return e["values"]

    def done(self):
        return self.pos == len(self.entries)


def close(got, want, absolute, relative):
    return abs(got - want) <= absolute + relative * abs(want)


def assert_matrix_close(got, want, tol, what):
    assert len(got) == len(want), what
    for r, (grow, wrow) in enumerate(zip(got, want)):
        assert len(grow) == len(wrow), what
        for j, (g, w) in enumerate(zip(grow, wrow)):
            assert close(g, w, tol["absolute"], tol["relative"]), (what, r, j, g, w)


def check_states(vec, states, output):
    tol = vec["tolerance"]
    for c in vec["checkpoints"]:
        assert c["iterate"] in states, c["iterate"]
        assert_matrix_close(states[c["iterate"]], c["theta"], tol, c["iterate"])
    assert_matrix_close(output, vec["output"]["theta"], tol, "output")


# ---- Algorithm 1 (docs/vectors/wang17.md "Replaying Algorithm 1") ----

def replay_svrg(vec):
    inp, par, der = vec["inputs"], vec["parameters"], vec["derived"]
    data, loss = inp["data"], inp["loss"]
    n, p, runs = len(data), inp["domain"]["parameters"]["dim"], par["runs"]
    T, m, eta = par["epochs"], par["epoch_length"], par["learning_rate"]
    lam = inp["regulariser"]["bounds"]["strength"]
    assert inp["regulariser"]["name"] == "L2Regulariser"
    sigma = der["sigma"]  # step 2: the accountant's sigma
    tape = Tape(vec)
    snap = [[0.0] * p for _ in range(runs)]
    states = {}
    for s in range(1, T + 1):
        vsnap = [full_gradient(loss, snap[r], data) for r in range(runs)]
        x = [list(row) for row in snap]
        acc = [[0.0] * p for _ in range(runs)]
        for t in range(1, m + 1):
            idx = tape.take("wang17 Alg.1 L6 index", "integers", [runs], {"high": n})
            u = tape.take("wang17 Alg.1 L7 u", "normal", [runs, p])
            for r in range(runs):
                i = idx[r]
                assert i == int(i) and 0 <= i < n
                d = data[int(i)]
                g1, g0 = gradient(loss, x[r], d), gradient(loss, snap[r], d)
                v = [a - b + c + sigma * z for a, b, c, z in zip(g1, g0, vsnap[r], u[r * p:(r + 1) * p])]
                x[r] = [(xj - eta * vj) / (1.0 + eta * lam) for xj, vj in zip(x[r], v)]
                acc[r] = [a + xj for a, xj in zip(acc[r], x[r])]
            states[f"x_{s}_{t}"] = [list(row) for row in x]
        snap = [[a / m for a in row] for row in acc]
        states[f"snapshot_{s}"] = [list(row) for row in snap]
    assert tape.done() and tape.pos == 2 * T * m
    return sigma, states, snap


# ---- Algorithm 2 (docs/vectors/wang17.md "Replaying Algorithm 2") ----

def replay_svrg_plus(vec):
    inp, par, der = vec["inputs"], vec["parameters"], vec["derived"]
    data, loss = inp["data"], inp["loss"]
    n, p, runs = len(data), inp["domain"]["parameters"]["dim"], par["runs"]
    T, m = par["epochs"], par["epoch_length"]
    eta = par.get("learning_rate") or 1.0 / (13.0 * constants(loss)[1])  # step 2: Theorem 4.4's 1/(13 L)
    lam = inp["regulariser"]["bounds"]["strength"]
    sigma = der["sigma"]  # step 2: the accountant's sigma
    tape = Tape(vec)
    snap = [[0.0] * p for _ in range(runs)]
    x = [list(row) for row in snap]
    states, k = {}, 0
    for s in range(1, T + 1):
        vsnap = [full_gradient(loss, snap[r], data) for r in range(runs)]
        ms = 2 ** s * m
        acc = [[0.0] * p for _ in range(runs)]
        for t in range(1, ms + 1):
            idx = tape.take("wang17 Alg.2 L6 index", "integers", [runs], {"high": n})
            u = tape.take("wang17 Alg.2 L7 u", "normal", [runs, p])
            for r in range(runs):
                d = data[int(idx[r])]
                g1, g0 = gradient(loss, x[r], d), gradient(loss, snap[r], d)
                v = [a - b + c + sigma * z for a, b, c, z in zip(g1, g0, vsnap[r], u[r * p:(r + 1) * p])]
                x[r] = [(xj - eta * vj) / (1.0 + eta * lam) for xj, vj in zip(x[r], v)]
                acc[r] = [a + xj for a, xj in zip(acc[r], x[r])]
            k += 1
            states[f"x_{s}_{t}"] = [list(row) for row in x]
        snap = [[a / ms for a in row] for row in acc]  # x carries over to the next epoch (line 11)
        states[f"snapshot_{s}"] = [list(row) for row in snap]
    assert tape.done() and k == m * (2 ** (T + 1) - 2)
    return eta, sigma, states, snap


@pytest.mark.parametrize("path", _vectors("wang17 Alg.2"))
def test_replay_dp_svrg_plus(path):
    vec = json.loads(path.read_text())
    der, par = vec["derived"], vec["parameters"]
    n, T, m = len(vec["inputs"]["data"]), par["epochs"], par["epoch_length"]
    K = m * (2 ** (T + 1) - 2)
    lip, smooth = constants(vec["inputs"]["loss"])
    assert (der["n"], der["steps"], der["epochs"], der["epoch_length"]) == (n, K, T, m)
    assert der["gradient_evaluations"] == T * n + 2 * K
    eta, sigma, states, out = replay_svrg_plus(vec)
    assert close(der["learning_rate"], eta, 0.0, DERIVED_REL)
    implied = sigma ** 2 * n ** 2 * par["epsilon"] ** 2 / (lip ** 2 * 2 ** T * m * math.log(2.0 / par["delta"]))
    assert close(implied, der["implied_constant"], 0.0, 1e-12)
    ends = [m * (2 ** (s + 1) - 2) for s in range(1, T + 1)]
    assert [c["step"] for c in vec["checkpoints"] if c["iterate"].startswith("snapshot")] == ends
    check_states(vec, states, out)


@pytest.mark.parametrize("path", _vectors("wang17 Alg.1"))
def test_replay_dp_svrg(path):
    vec = json.loads(path.read_text())
    der, par = vec["derived"], vec["parameters"]
    n, T, m = len(vec["inputs"]["data"]), par["epochs"], par["epoch_length"]
    lip, smooth = constants(vec["inputs"]["loss"])
    assert (der["n"], der["steps"], der["epochs"], der["epoch_length"]) == (n, T * m, T, m)
    assert (der["lipschitz"], der["smoothness"], der["learning_rate"]) == (lip, smooth, par["learning_rate"])
    assert der["gradient_evaluations"] == T * (n + 2 * m)
    sigma, states, out = replay_svrg(vec)
    implied = sigma ** 2 * n ** 2 * par["epsilon"] ** 2 / (lip ** 2 * T * m * math.log(1.0 / par["delta"]))
    assert close(implied, der["implied_constant"], 0.0, 1e-12)
    assert vec["flags"] == ["accountant-calibration"]
    steps = sorted({1, 2, m, T * m})
    names = [f"x_{(k - 1) // m + 1}_{(k - 1) % m + 1}" for k in steps] + [f"snapshot_{s}" for s in range(1, T + 1)]
    assert [c["iterate"] for c in vec["checkpoints"]] == names
    check_states(vec, states, out)


# ---- Algorithm 4 (docs/vectors/wang17.md "Replaying Algorithm 4") ----

def replay_gd(vec):
    inp, par = vec["inputs"], vec["parameters"]
    data, loss = inp["data"], inp["loss"]
    n, p, runs, T = len(data), inp["domain"]["parameters"]["dim"], par["runs"], par["steps"]
    lip, smooth = constants(loss)
    sigma = zcdp_sigma(lip, n, T, par["epsilon"], par["delta"])
    eta = 1.0 / smooth
    tape = Tape(vec)
    x = [[0.0] * p for _ in range(runs)]
    history = [[list(row) for row in x]]
    for t in range(1, T + 1):
        z = tape.take("wang17 Alg.4 L2 z", "normal", [runs, p])
        x = [[xj - eta * (gj + sigma * zj) for xj, gj, zj in zip(x[r], full_gradient(loss, x[r], data),
                                                                  z[r * p:(r + 1) * p])] for r in range(runs)]
        history.append([list(row) for row in x])
    index = None
    if par["output"] == "last":
        out = x
    else:
        index = tape.take("wang17 Alg.4 L5 index", "integers", [runs], {"high": T})
        out = [history[int(j)][r] for r, j in enumerate(index)]
    assert tape.done()
    return sigma, eta, {f"x_{t}": history[t] for t in range(1, T + 1)}, out, index


@pytest.mark.parametrize("path", _vectors("wang17 Alg.4"))
def test_replay_dp_gd(path):
    vec = json.loads(path.read_text())
    der, par = vec["derived"], vec["parameters"]
    sigma, eta, states, out, index = replay_gd(vec)
    lip, smooth = constants(vec["inputs"]["loss"])
    assert (der["lipschitz"], der["steps"]) == (lip, par["steps"])
    assert close(der["smoothness"], smooth, 0.0, 1e-15)
    assert close(der["sigma"], sigma, 0.0, DERIVED_REL) and der["sigma"] >= sigma * (1 - 1e-15)  # rounded up
    assert close(der["learning_rate"], eta, 0.0, 1e-15) and der["learning_rate"] * der["smoothness"] <= 1.0
    T = par["steps"]
    assert [c["iterate"] for c in vec["checkpoints"]] == [f"x_{t}" for t in sorted({1, 2, T // 2, T})]
    check_states(vec, states, out)
    assert ("random-iterate" in vec["flags"]) == (par["output"] == "random")
    if index is not None:
        assert der["output_index"] == index


# ---- Algorithm 3 on the l2 ball (docs/vectors/wang17.md "Replaying Algorithm 3") ----

def project_ball(v, radius):
    norm = math.sqrt(dot(v, v))
    return list(v) if norm <= radius else [radius * a / norm for a in v]


def replay_accmd_l2(vec):
    inp, par = vec["inputs"], vec["parameters"]
    data, loss = inp["data"], inp["loss"]
    R, p = inp["domain"]["parameters"]["radius"], inp["domain"]["parameters"]["dim"]
    n, runs, T = len(data), par["runs"], par["steps"]
    lip, smooth = constants(loss)
    sigma = zcdp_sigma(lip, n, T, par["epsilon"], par["delta"])
    cnorm = 2.0 * R
    M = smooth * cnorm ** 2
    alphas = [(t + 1) / (4.0 * smooth * cnorm ** 2) for t in range(1, T + 1)]
    couplings = [2.0 / (t + 1) for t in range(1, T + 1)]
    tape = Tape(vec)
    y = [[0.0] * p for _ in range(runs)]
    z = [[0.0] * p for _ in range(runs)]
    states = {}
    for k in range(T):
        a, c = alphas[k], couplings[k]
        b = tape.take("wang17 Alg.3 L7 b", "normal", [runs, p])
        for r in range(runs):
            x = [c * zj + (1.0 - c) * yj for zj, yj in zip(z[r], y[r])]
            g = [gj + sigma * bj for gj, bj in zip(full_gradient(loss, x, data), b[r * p:(r + 1) * p])]
            y[r] = project_ball([xj - R * R / M * gj for xj, gj in zip(x, g)], R)
            z[r] = project_ball([zj - a * R * R * gj for zj, gj in zip(z[r], g)], R)
        states[f"y_{k + 1}"] = [list(row) for row in y]
        states[f"z_{k + 1}"] = [list(row) for row in z]
    assert tape.done()
    return sigma, M, alphas, couplings, states, y


@pytest.mark.parametrize("path", _vectors("wang17 Alg.3", lambda v: v["inputs"]["domain"]["name"] == "L2Ball"))
def test_replay_dp_accmd_on_the_l2_ball(path):
    vec = json.loads(path.read_text())
    der, par = vec["derived"], vec["parameters"]
    assert par["mirror_map"] == "squared_l2"
    sigma, M, alphas, couplings, states, out = replay_accmd_l2(vec)
    assert close(der["sigma"], sigma, 0.0, DERIVED_REL) and der["sigma"] >= sigma * (1 - 1e-15)
    assert close(der["y_step_smoothness"], M, 0.0, DERIVED_REL)
    for got, want in zip(alphas + couplings, der["alphas"] + der["couplings"], strict=True):
        assert close(got, want, 0.0, DERIVED_REL)
    T = par["steps"]
    picks = sorted({1, 2, T // 2, T})
    assert [c["iterate"] for c in vec["checkpoints"]] == [f"{w}_{t}" for t in picks for w in ("y", "z")]
    check_states(vec, states, out)


_REPLAYS = {"wang17 Alg.1": test_replay_dp_svrg, "wang17 Alg.2": test_replay_dp_svrg_plus,
            "wang17 Alg.3": test_replay_dp_accmd_on_the_l2_ball, "wang17 Alg.4": test_replay_dp_gd}


@pytest.mark.parametrize("path", _vectors("wang17 Alg.1") + _vectors("wang17 Alg.2") + _vectors("wang17 Alg.4") + _vectors(
    "wang17 Alg.3", lambda v: v["inputs"]["domain"]["name"] == "L2Ball"))
def test_vectors_are_sensitive_to_the_gradient(path, monkeypatch):
    """A 0.1% slip in the loss gradient must be caught at a checkpoint (the noise and the
    projections do not swamp the gradient)."""
    exact = gradient
    monkeypatch.setitem(globals(), "gradient", lambda loss, theta, row: [1.001 * g for g in exact(loss, theta, row)])
    vec = json.loads(path.read_text())
    with pytest.raises(AssertionError) as caught:
        _REPLAYS[vec["algorithm"]](path)
    where = str(caught.value)  # assert_matrix_close's message starts with the iterate's name
    assert any(where.startswith(f"('{name}',") for name in [c["iterate"] for c in vec["checkpoints"]] + ["output"])


# ---- Algorithm 3 on the l1 ball: the p-norm mirror step (docs/vectors/wang17.md, l1 ball, line 7) ----

def h(v, r):
    """Gradient of ||v||_r^2 / 2: sign(v) |v|^(r-1) / ||v||_r^(r-2) (0 at v = 0)."""
    norm = sum(abs(a) ** r for a in v) ** (1.0 / r)
    if norm == 0:
        return [0.0] * len(v)
    return [math.copysign(abs(a) ** (r - 1), a) / norm ** (r - 2) for a in v]


def pnorm_step(z, g, alpha, R, p):
    """argmin_{||z'||_1 <= R} B_w(z', z) + alpha <g, z' - z>, w = kappa ||.||_q^2 / 2."""
    q = 2.0 if p <= 2 else 1.0 + 1.0 / math.log(p)
    qs = q / (q - 1.0)
    kappa = 1.0 / (R * R * (q - 1.0) * p ** (2.0 / q - 2.0))
    theta = [kappa * a - alpha * b for a, b in zip(h(z, q), g)]

    def dual(t):
        return [a / kappa for a in h(t, qs)]

    free = dual(theta)
    if sum(abs(a) for a in free) <= R:
        return free
    lo, hi = 0.0, max(abs(a) for a in theta)
    for _ in range(300):  # ||grad w*(S_lam(theta))||_1 decreases in lam: bisect to the feasible end
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        zz = dual([math.copysign(max(abs(a) - mid, 0.0), a) for a in theta])
        lo, hi = (mid, hi) if sum(abs(a) for a in zz) > R else (lo, mid)
    return dual([math.copysign(max(abs(a) - hi, 0.0), a) for a in theta])


@pytest.mark.parametrize("path", _vectors("wang17 Alg.3", lambda v: v["inputs"]["domain"]["name"] == "L1Ball"))
def test_the_p_norm_mirror_steps_of_the_l1_ball_vector(path):
    """z_1 and z_2 from the documented p-norm step, with x_2 built from the stored y_1 and z_1 (line 6's
    exact l1 step is the reference's: docs/vectors/wang17.md)."""
    vec = json.loads(path.read_text())
    inp, par = vec["inputs"], vec["parameters"]
    data, loss = inp["data"], inp["loss"]
    R, p = inp["domain"]["parameters"]["radius"], inp["domain"]["parameters"]["dim"]
    n, runs = len(data), par["runs"]
    lip, smooth = constants(loss)
    sigma = zcdp_sigma(lip, n, par["steps"], par["epsilon"], par["delta"])
    stored = {c["iterate"]: c["theta"] for c in vec["checkpoints"]}
    tape = Tape(vec)
    z = [[0.0] * p for _ in range(runs)]
    y = [[0.0] * p for _ in range(runs)]
    tol = vec["tolerance"]
    for t in (1, 2):
        alpha, coupling = (t + 1) / (4.0 * smooth * (2.0 * R) ** 2), 2.0 / (t + 1)
        b = tape.take("wang17 Alg.3 L7 b", "normal", [runs, p])
        new = []
        for r in range(runs):
            x = [coupling * zj + (1.0 - coupling) * yj for zj, yj in zip(z[r], y[r])]
            g = [gj + sigma * bj for gj, bj in zip(full_gradient(loss, x, data), b[r * p:(r + 1) * p])]
            new.append(pnorm_step(z[r], g, alpha, R, p))
        assert_matrix_close(new, stored[f"z_{t}"], tol, f"z_{t}")
        z, y = stored[f"z_{t}"], stored[f"y_{t}"]


@pytest.mark.parametrize("seed", range(5))
def test_the_documented_bregman_projection_is_the_reference_step(seed):
    """The committed l1-ball vector never reaches the ball's boundary, so its checkpoints do not test the
    projection branch of the documented step: compared here with the reference's step on inputs where it
    is active (the one test of this file that imports the project)."""
    import random

    from reference.domains import L1Ball
    from reference.wang17.mirror_maps import PNorm

    rnd = random.Random(seed)
    p, R = 3 + seed % 3, 0.5 + seed
    z = [rnd.uniform(-1, 1) for _ in range(p)]
    scale = R / sum(abs(a) for a in z) * rnd.uniform(0.2, 0.9)
    z = [a * scale for a in z]
    g = [rnd.gauss(0, 1) for _ in range(p)]
    alpha = 50.0 / R  # a long step: the free mirror step leaves the ball
    import numpy as np

    want = PNorm(L1Ball(radius=R, dim=p)).step(np.array(z), np.array(g), alpha).tolist()
    got = pnorm_step(z, g, alpha, R, p)
    assert abs(sum(abs(a) for a in want) - R) < 1e-12  # the projection is active
    assert all(abs(a - b) <= 1e-12 * R for a, b in zip(got, want)), (got, want)
