"""Independent replay of the wang19 known-answer vectors (Algorithms 1-4).

Written from docs/vectors/wang19.md and the paper (Wang and Xu 2019,
Algorithms 1-4, equation (3), Theorems 2, 4, 5, 6) alone. It shares no code with reference/ and imports
nothing from the project: only the Python standard library and pytest. Every derived number is
recomputed here and compared with the vector, then every iterate and the output.
"""
import json
import math
from pathlib import Path

import pytest

VECTOR_DIR = Path(__file__).resolve().parents[3] / "reference" / "vectors" / "wang19"
DERIVED_REL = 1e-13  # own double evaluation vs the vector's 50-digit values rounded once


def load_vectors():
    return [pytest.param(p, id=p.stem) for p in sorted(VECTOR_DIR.glob("*.json"))]


# ---- losses (replay step 2) ----

def constants(loss):
    b = loss["bounds"]
    if loss["name"] == "Sigmoid":
        x = b["feature_norm"]
        return x / 4, x * x / (6 * math.sqrt(3))
    if loss["name"] == "Cauchy":
        return b["feature_norm"] * b["scale"] / 2, b["feature_norm"] ** 2
    if loss["name"] == "Linear":
        return b["data_norm"], 0.0
    raise ValueError(loss["name"])


def gradient(loss, theta, data):
    """grad F(theta) = average of the per-row gradients."""
    p = len(theta)
    g = [0.0] * p
    for row in data:
        if loss["name"] == "Linear":
            per = [-d for d in row]
        else:
            x, y = row[:p], row[p]
            m = sum(t * xi for t, xi in zip(theta, x))
            if loss["name"] == "Sigmoid":
                s = 1.0 / (1.0 + math.exp(y * m))
                coef = -y * s * (1 - s)
            else:
                c = loss["bounds"]["scale"]
                r = m - y
                coef = r / (1 + (r / c) ** 2)
            per = [coef * xi for xi in x]
        g = [a + b for a, b in zip(g, per)]
    return [a / len(data) for a in g]


# ---- constants (replay steps 3-5) ----

def width_l2_ball(radius, p):
    return radius * math.sqrt(2) * math.exp(math.lgamma((p + 1) / 2) - math.lgamma(p / 2))


def derive(v):
    data, prm = v["inputs"]["data"], v["parameters"]
    n, p = len(data), len(v["inputs"]["theta_1"][0])
    eps, delta = prm["epsilon"], prm["delta"]
    a = math.log(1 / delta)
    G, L = constants(v["inputs"]["loss"])
    alg = v["algorithm"]
    T = prm["steps"] if isinstance(prm["steps"], int) else math.ceil(n * eps / math.sqrt(p * a))
    out = {"n": n, "p": p, "lipschitz": G, "smoothness": L, "steps": T}
    dom = v["inputs"]["domain"]
    if alg != "wang19 Alg.4":
        rho = (math.sqrt(a + eps) - math.sqrt(a)) ** 2
        out["sigma"] = math.sqrt(2 * G * G * T / (n * n * rho))
    if alg == "wang19 Alg.1":
        out["learning_rate"] = 1 / (2 * L)
    elif alg == "wang19 Alg.2":
        rad = dom["parameters"]["radius"]
        D, GC = 2 * rad, width_l2_ball(rad, p)
        out["gaussian_width"] = GC
        out["learning_rate"] = min(1.0, ((D * D + GC * GC) * a) ** 0.25 / (D * math.sqrt(n * eps)))
    elif alg == "wang19 Alg.3":
        rad = dom["parameters"]["radius"]
        out["learning_rate"] = 1 / (2 * L * (2 * rad) ** 2)  # gamma = 1/(2 L ||C||_2^2)
        out["modulus"] = rad * rad  # ||x||_2^2/2 w.r.t. ||.||_C = ||.||_2/rad
    else:
        rad = dom["parameters"]["radius"]
        e0 = eps / math.sqrt(8 * T * a)
        out["epsilon_step"] = e0
        out["coefficient"] = e0 * n / (2 * G * 2 * rad)
        out["candidates"] = 2 * p
        out["learning_rate"] = min(1.0, math.sqrt(2 / (T * (2 * rad) ** 2)))
    return out


# ---- one step (replay step 7) ----

def step(v, d, x, draw):
    alg, loss, data = v["algorithm"], v["inputs"]["loss"], v["inputs"]["data"]
    dom, prm = v["inputs"]["domain"], v["parameters"]
    gamma = d["learning_rate"]
    grad = gradient(loss, x, data)
    if alg == "wang19 Alg.4":
        rad, p = dom["parameters"]["radius"], len(x)
        verts = [[rad if j == i else 0.0 for j in range(p)] for i in range(p)]
        verts += [[-c for c in row] for row in verts]
        u = [-sum(vi * gi for vi, gi in zip(vert, grad)) for vert in verts]
        top = max(u)
        keys = [d["coefficient"] * (uk - top) + gk for uk, gk in zip(u, draw)]
        k = keys.index(max(keys))
        return [(1 - gamma) * xi + gamma * ai for xi, ai in zip(x, verts[k])]
    g = [gi + d["sigma"] * z for gi, z in zip(grad, draw)]
    if alg == "wang19 Alg.1":
        vv = [xi - gamma * gi for xi, gi in zip(x, g)]
        reg = prm.get("regulariser")
        if reg is not None:
            t = gamma * reg["strength"]
            vv = [math.copysign(max(abs(c) - t, 0.0), c) for c in vv]
        if dom["name"] == "L2Ball":
            norm = math.sqrt(sum(c * c for c in vv))
            rad = dom["parameters"]["radius"]
            if norm > rad:
                vv = [c * rad / norm for c in vv]
        return vv
    if alg == "wang19 Alg.2":
        rad = dom["parameters"]["radius"]
        norm = math.sqrt(sum(c * c for c in g))
        vert = [-rad * c / norm for c in g]
        return [xi + gamma * (vi - xi) for xi, vi in zip(x, vert)]
    # Algorithm 3 with w = ||x||_2^2/(2 modulus): the projected step of the raw w at eta = modulus * gamma
    rad, eta = dom["parameters"]["radius"], d["modulus"] * gamma
    vv = [xi - eta * gi for xi, gi in zip(x, g)]
    norm = math.sqrt(sum(c * c for c in vv))
    return [c * rad / norm for c in vv] if norm > rad else vv


@pytest.mark.parametrize("path", load_vectors())
def test_independent_replay(path):
    v = json.loads(path.read_text())
    d = derive(v)
    for key, value in d.items():
        want = v["derived"][key]
        assert abs(value - want) <= DERIVED_REL * abs(want) + 1e-300, (key, value, want)
    entries = v["tape"]["entries"]
    runs, p, T = v["parameters"]["runs"], d["p"], d["steps"]
    assert len(entries) == T + 1 and entries[0]["kind"] == "integers" and entries[0]["params"]["high"] == T
    R = [value + 1 for value in entries[0]["values"]]
    width = 2 * p if v["algorithm"] == "wang19 Alg.4" else p
    tol = v["tolerance"]["absolute"]
    for r in range(runs):
        x = list(v["inputs"]["theta_1"][r])
        iterates = [x]
        for t in range(1, T + 1):
            e = entries[t]
            assert e["kind"] == ("gumbel" if v["algorithm"] == "wang19 Alg.4" else "normal")
            x = step(v, d, x, e["values"][r * width:(r + 1) * width])
            iterates.append(x)
        for cp in v["checkpoints"]:
            assert cp["iterate"] == f"x_{cp['step'] + 1}"
            assert all(abs(a - b) <= tol for a, b in zip(iterates[cp["step"]], cp["theta"][r]))
        assert v["output"]["index"][r] == R[r]
        assert all(abs(a - b) <= tol for a, b in zip(iterates[R[r] - 1], v["output"]["theta"][r]))
        assert all(abs(a - b) <= tol for a, b in zip(iterates[R[r]], v["output"]["x_next"][r]))
