"""wang20's known-answer vector cases: Algorithm 1 (sample-and-aggregate of projected block means),
Algorithm 2 (the erratum's counterexample; Student-t data with the default trim), Algorithm 3 and Algorithm 4 on small heavy-tailed instances, each with one extreme record,
and how the reference computes each.

The data are deterministic functions of the row index (quantiles of heavy-tailed laws, permuted by a
fixed rule, rounded to 9 significant digits), so regeneration reproduces the inputs exactly on any
machine. The cases are written to ``reference/vectors/wang20/`` by ``python -m reference.vectors.generate``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

from reference import wang20
from reference.tape import NoiseTape, Replay
from reference.vectors.build import build_domain, build_loss, complete, float_list
from reference.vectors.declared import Population
from reference.wang20 import bun_steinke
from reference.wang20 import catoni_giulini as cg
from reference.wang20 import gradient_descent as gd
from reference.wang20 import sample_and_aggregate as sa

__all__ = ["CASES", "SPEC_IDS", "cites", "compute", "build_vector"]

_EXTREME = 1e6


def _round(x):
    return [[float(f"{v:.9g}") for v in row] for row in np.atleast_2d(x)]


def _quantiles(dist, n, shift):
    """``dist.ppf((i + 1/2)/n)`` for i = 0..n-1, permuted by ``i -> (shift i) mod n``."""
    q = dist.ppf((np.arange(n) + 0.5) / n)
    return q[(shift * np.arange(n)) % n]


def _t_values(n):
    return _round(_quantiles(sps.t(3), n, 7)[:, None])


def _regression_rows(n, d, w, heavy=1e8):
    x = np.column_stack([_quantiles(sps.t(5), n, 3 + 2 * j) for j in range(d)])
    e = _quantiles(sps.t(3), n, 11)
    rows = np.column_stack([x, x @ np.asarray(w) + 0.5 * e])
    rows[0, :d] = heavy  # the extreme record
    rows[0, d] = heavy
    return _round(rows)


def _bounded_regression_rows(n, d, w, heavy):
    """Features ``Uniform[-sqrt 3, sqrt 3]`` (variance 1), labels ``<w, x> + e``, ``e ~ Laplace(0, 1/2)``; the
    first record's label is ``heavy`` (a Laplace draw far in the tail)."""
    x = np.column_stack([_quantiles(sps.uniform(loc=-math.sqrt(3), scale=2 * math.sqrt(3)), n, 3 + 2 * j)
                         for j in range(d)])
    e = _quantiles(sps.laplace(scale=0.5), n, 11)
    rows = np.column_stack([x, x @ np.asarray(w) + e])
    rows[0, d] = heavy
    return _round(rows)


def _logistic_rows(n, d, w):
    x = np.column_stack([_quantiles(sps.t(4), n, 5 + 2 * j) for j in range(d)])
    u = ((7 * np.arange(n)) % n + 0.5) / n
    y = np.where(u < sps.logistic.cdf(x @ np.asarray(w)), 1.0, -1.0)
    x[0] = 1e7
    return _round(np.column_stack([x, y]))


def _points(n, d):
    pts = np.column_stack([0.2 + sps.laplace.ppf((((5 + 2 * j) * np.arange(n)) % n + 0.5) / n) for j in range(d)])
    pts[0] = _EXTREME
    return _round(pts)


_BALL2 = {"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}}

# The populations the data are quantiles of (wang20's utility theorems assume a law; Population states
# exact facts about it, which reference.vectors.declared checks the declared beta, alpha, v and [a, b]
# against). W is the unit l2 ball, w0 = 0.
_W_LS = (0.3, -0.2)  # the regression vectors' true parameter, inside W
_W_LOGISTIC = (0.25, -0.125)  # 3 ||w*|| <= 1: W contains B(w*, 2 ||w0 - w*||) (Assumption 5)


def _t_moments(nu):
    """``(E x^2, E x^4)`` of Student's t with ``nu > 4`` degrees of freedom (exact)."""
    return nu / (nu - 2), 3 * nu * nu / ((nu - 2) * (nu - 4))


_MEAN_POPULATION = Population(
    law="x_j = 0.2 + Laplace(0, 1), independent; l = ||w - x||^2/2: Hessian I, w* = E x",
    smoothness=1.0, strong_convexity=1.0, minimiser=(0.2, 0.2),
    gradient_mean_range=(-1.2, 0.8),  # E grad_j l = w_j - 0.2 for |w_j| <= 1
    subexponential=True)  # w_j - x_j: Laplace, 1-Lipschitz in w
_BOUNDED_LS_POPULATION = Population(
    law="x_j ~ Uniform[-sqrt 3, sqrt 3] independent, y = <w*, x> + e, e ~ Laplace(0, 1/2): Hessian E xx^T = I",
    smoothness=1.0, strong_convexity=1.0, minimiser=_W_LS,
    gradient_mean_range=(-1.3, 1.3),  # E grad l = w - w*, |w_j| <= 1, |w*_j| <= 0.3
    subexponential=True)  # (<w - w*, x> - e) x_j: bounded times sub-exponential; Lipschitz in w (|x_j| ||x|| <= 3 sqrt 2)
_VAR_T5, _FOURTH_T5 = _t_moments(5)  # 5/3, 25
_HEAVY_LS_POPULATION = Population(
    law="x_j ~ t(5) independent, y = <w*, x> + e/2, e ~ t(3): Hessian E xx^T = (5/3) I",
    smoothness=math.nextafter(_VAR_T5, math.inf), strong_convexity=math.nextafter(_VAR_T5, 0.0), minimiser=_W_LS,
    # E[(grad_j l)^2] = E x^4 u_j^2 + (E x^2)^2 sum_{k != j} u_k^2 + (3/4) E x^2, u = w - w*, |u_j| <= 1.3, ||u|| <= 1 + ||w*||
    second_moment=math.nextafter(_FOURTH_T5 * 1.3**2 + _VAR_T5**2 * (1 + math.hypot(*_W_LS))**2 + 0.75 * _VAR_T5,
                                 math.inf))
_LOGISTIC_POPULATION = Population(
    law="x_j ~ t(4) independent (E x_j^2 = 2), P(y = 1 | x) = 1/(1 + exp(-<w*, x>)): the minimiser is w*",
    smoothness=0.5,  # lambda_max E[s'(<w, x>) xx^T] <= E xx^T / 4 = 2/4, equality at w = 0
    minimiser=_W_LOGISTIC,
    second_moment=2.0)  # E[x_j^2 s(-y <w, x>)^2] <= E x_j^2 = 2

CASES = (
    # Sample-and-aggregate: n = 32 records in m = 16 blocks of 2 (s = 4, t0 = 11, K = 1), each block's ERM of
    # the half squared distance over the unit ball, i.e. the projected block mean (exact; ``block_function``).
    # Theorem 1 needs epsilon > 2 d/sqrt(m) = 1 and m >= ln(n)^2 = 12.0.
    dict(id="wang20-alg1-mean-blocks", algorithm="wang20 Alg.1", seed=101, data=_points(32, 2),
         loss={"name": "HeavyTailedHalfSquaredDistance", "bounds": {}}, domain=_BALL2,
         parameters={"epsilon": 2.0, "delta": 1e-5, "subsets": 16, "block_function": "projected_mean", "runs": 1}),
    dict(id="wang20-alg2-counterexample", algorithm="wang20 Alg.2", seed=201,
         data=[[0.0], [1.0], [2.0], [3.0], [1000.0]],
         parameters={"epsilon": 0.4, "mean_lower": 0.0, "mean_upper": 4.0, "trim": 1, "runs": 3}),
    dict(id="wang20-alg2-student-t-default-trim", algorithm="wang20 Alg.2", seed=202,
         data=_t_values(300) + [[_EXTREME]],
         parameters={"epsilon": 1.0, "mean_lower": -1.0, "mean_upper": 1.0, "runs": 2}),
    dict(id="wang20-alg3-mean-estimation", algorithm="wang20 Alg.3", seed=301, data=_points(20, 2),
         loss={"name": "HeavyTailedHalfSquaredDistance", "bounds": {}}, domain=_BALL2,
         parameters={"epsilon": 1.0, "delta": 1e-3, "mean_lower": -2.0, "mean_upper": 2.0, "trim": 3,
                     "smoothness": 1.0, "strong_convexity": 1.0, "runs": 2},
         population=_MEAN_POPULATION),
    # Theorem 5's Assumption 3 needs sub-exponential, Lipschitz gradient coordinates: bounded features
    # and Laplace label noise (the extreme record is a label), not t(5) features
    dict(id="wang20-alg3-least-squares-default-trim", algorithm="wang20 Alg.3", seed=302,
         data=_bounded_regression_rows(24, 2, _W_LS, heavy=1e6),
         loss={"name": "HeavyTailedLeastSquares", "bounds": {}}, domain=_BALL2,
         parameters={"epsilon": 0.8, "delta": 1e-2, "mean_lower": -3.0, "mean_upper": 3.0, "smoothness": 1.0,
                     "strong_convexity": 1.0, "runs": 1},
         population=_BOUNDED_LS_POPULATION),
    # beta >= 5/3 >= alpha for t(5) features (E x_j^2 = 5/3); v bounds sup E[(grad_j l)^2] (48.7)
    dict(id="wang20-alg4-least-squares-strongly-convex", algorithm="wang20 Alg.4", seed=401,
         data=_regression_rows(30, 2, _W_LS),
         loss={"name": "HeavyTailedLeastSquares", "bounds": {}}, domain=_BALL2,
         parameters={"epsilon": 2.0, "delta": 1e-5, "second_moment": 50.0, "failure_probability": 1e-3,
                     "smoothness": 2.0, "strong_convexity": 1.5, "schedule": "strongly_convex", "runs": 2},
         population=_HEAVY_LS_POPULATION),
    dict(id="wang20-alg4-logistic-convex", algorithm="wang20 Alg.4", seed=402,
         data=_logistic_rows(25, 2, _W_LOGISTIC),
         loss={"name": "HeavyTailedLogistic", "bounds": {}}, domain=_BALL2,
         parameters={"epsilon": 4.0, "delta": 1e-5, "second_moment": 2.0, "failure_probability": 1e-3,
                     "smoothness": 0.5, "schedule": "convex", "noise_precision": 4.0, "runs": 2},
         population=_LOGISTIC_POPULATION),
)

#: Spec ids per algorithm: the ones each reference function reports on its result.
SPEC_IDS = {
    "wang20 Alg.1": list(sa.SPEC_IDS),
    "wang20 Alg.2": list(bun_steinke.SPEC_IDS),
    "wang20 Alg.3": list(gd.ALG3_SPEC_IDS),
    "wang20 Alg.4": list(gd.ALG4_SPEC_IDS),
}


#: Algorithm 1's block functions a vector may name (``parameters.block_function``; absent: the ERM solve).
BLOCK_FUNCTIONS = {"projected_mean": sa.projected_mean_blocks}


def cites(vector: dict) -> list[str]:
    """The records a vector's run is an instance of: Algorithm 4 cites Theorem 7 (strongly convex
    schedule) or Theorem 8 (convex), the one whose T it runs; Algorithm 1 cites its box and Theorem 1
    (privacy), not Theorem 2, whose hypotheses are asymptotic in n and m (n >= Omega~(n_alpha d^2/eps^2),
    m >= omega~(d^2/eps^2)) and so hold for no finite instance."""
    ids = list(SPEC_IDS[vector["algorithm"]])
    if vector["algorithm"] == "wang20 Alg.1":
        ids.remove("wang20.thm_2")
    if vector["algorithm"] == "wang20 Alg.4":
        other = "wang20.thm_8" if vector["parameters"].get("schedule", "strongly_convex") == "strongly_convex" \
            else "wang20.thm_7"
        ids.remove(other)
    return ids


def _extreme(data) -> bool:
    return bool(np.max(np.abs(np.asarray(data, dtype=float))) >= _EXTREME)


def _run(vector, noise):
    inputs, prm = vector["inputs"], vector["parameters"]
    data = np.asarray(inputs["data"], dtype=np.float64)
    algorithm = vector["algorithm"]
    if algorithm == "wang20 Alg.1":
        block = prm.get("block_function")
        return wang20.sample_aggregate(data, loss=build_loss(inputs["loss"]), domain=build_domain(inputs["domain"]),
                                       epsilon=prm["epsilon"], delta=prm["delta"], subsets=prm["subsets"],
                                       block_function=None if block is None else BLOCK_FUNCTIONS[block],
                                       runs=prm["runs"], noise=noise)
    if algorithm == "wang20 Alg.2":
        return wang20.trimmed_mean(data[:, 0], epsilon=prm["epsilon"], mean_lower=prm["mean_lower"],
                                   mean_upper=prm["mean_upper"], trim=prm.get("trim"), runs=prm["runs"], noise=noise)
    loss, domain = build_loss(inputs["loss"]), build_domain(inputs["domain"])
    if algorithm == "wang20 Alg.3":
        return wang20.trimmed_mean_gd(data, loss=loss, domain=domain, epsilon=prm["epsilon"], delta=prm["delta"],
                                      mean_lower=prm["mean_lower"], mean_upper=prm["mean_upper"],
                                      smoothness=prm["smoothness"], strong_convexity=prm["strong_convexity"],
                                      trim=prm.get("trim"), runs=prm["runs"], noise=noise, transcript=True)
    if algorithm == "wang20 Alg.4":
        return wang20.catoni_giulini_gd(data, loss=loss, domain=domain, epsilon=prm["epsilon"], delta=prm["delta"],
                                        second_moment=prm["second_moment"],
                                        failure_probability=prm["failure_probability"], smoothness=prm["smoothness"],
                                        schedule=prm["schedule"], strong_convexity=prm.get("strong_convexity"),
                                        noise_precision=prm.get("noise_precision"), runs=prm["runs"], noise=noise,
                                        transcript=True)
    raise ValueError(f"algorithm ({algorithm!r}) must be one of {sorted(SPEC_IDS)}")


def _gd_checkpoints(res):
    out = []
    for t in range(res.steps):
        out.append({"step": t + 1, "iterate": f"g_{t}", "theta": float_list(res.transcript["gradient"][t])})
        out.append({"step": t + 1, "iterate": f"w_{t + 1}", "theta": float_list(res.transcript["theta"][t])})
    return out


def _projection_active(res, domain) -> bool:
    prev = np.concatenate([res.theta_1[None], res.transcript["theta"][:-1]])
    raw = prev - res.learning_rate * res.transcript["gradient"]
    return bool(np.any(np.abs(raw - res.transcript["theta"]) > 0))


def compute(vector: dict, tape: NoiseTape) -> dict:
    """Run the reference on a vector's inputs with ``tape``; returns derived, checkpoints, output, flags."""
    src = Replay(tape)
    res = _run(vector, src)
    src.assert_consumed()
    inputs, prm = vector["inputs"], vector["parameters"]
    data = np.asarray(inputs["data"], dtype=np.float64)
    n = int(data.shape[0])
    flags = []
    if "trim" not in prm and vector["algorithm"] in ("wang20 Alg.2", "wang20 Alg.3"):
        flags.append("default-trim")
    if _extreme(data):
        flags.append("extreme-record")
    if vector["algorithm"] == "wang20 Alg.1":
        derived = {"n": n, "p": int(res.theta.shape[1]), "redraws": int(res.redraws)}
        derived.update({k: v for k, v in res.parameters.items()})
        # the block outputs of one run are an m x d checkpoint; with several runs there is no room for them
        blocks = [{"step": 3, "iterate": "z", "theta": float_list(res.blocks[0])}] if prm["runs"] == 1 else []
        return {
            "derived": derived,
            "checkpoints": blocks + [{"step": 4, "iterate": "g", "theta": float_list(res.centre)},
                                     {"step": 5, "iterate": "S", "theta": [[float(v)] for v in res.smooth_bound]}],
            "output": {"theta": float_list(res.theta)},
            "flags": flags,
        }
    if vector["algorithm"] == "wang20 Alg.2":
        if 2 * res.trim == n - 1 or 2 * res.trim == n - 2:
            flags.append("trim-capped")
        return {
            "derived": {"n": n, "p": 1, "trim": res.trim, "dilation": res.dilation, "shift": res.shift,
                        "smooth_bound": res.smooth_bound, "noise_scale": res.noise_scale},
            "checkpoints": [{"step": 1, "iterate": "smooth_bound", "theta": [[res.smooth_bound]]},
                            {"step": 2, "iterate": "trimmed_mean", "theta": [[res.statistic]]}],
            "output": {"theta": [[float(v)] for v in res.value]},
            "flags": flags,
        }
    domain = build_domain(inputs["domain"])
    p = int(domain.dim)
    derived = {"n": n, "p": p, "steps": int(res.steps), "learning_rates": [res.learning_rate] * res.steps}
    derived.update({k: v for k, v in res.parameters.items() if k != "schedule"})
    if vector["algorithm"] == "wang20 Alg.3" and 2 * res.parameters["trim"] >= n - 2:
        flags.append("trim-capped")
    if vector["algorithm"] == "wang20 Alg.4" and _tail_regime(vector, res):
        flags.append("tail-regime")
    if _projection_active(res, domain):
        flags.append("projection-active")
    return {"derived": derived, "checkpoints": _gd_checkpoints(res), "output": {"theta": float_list(res.theta)},
            "flags": flags}


def _tail_regime(vector, res) -> bool:
    """Whether some Catoni-Giulini term was evaluated in the tail regime (|a| + b > 8)."""
    inputs = vector["inputs"]
    loss = build_loss(inputs["loss"])
    rows = loss.validate_data(np.asarray(inputs["data"], dtype=float))
    s, beta = res.parameters["truncation_scale"], res.parameters["noise_precision"]
    prev = np.concatenate([res.theta_1[None], res.transcript["theta"][:-1]])
    a = loss.gradient(prev[:, :, None, :], rows) / s
    return bool(np.any(np.abs(a) * (1 + 1 / np.sqrt(beta)) > cg._EXACT_LIMIT))


def build_vector(case: dict, tape: NoiseTape | None) -> dict:
    """The complete vector of ``case``; ``tape=None`` draws one from the case's seed."""
    inputs = {"data": case["data"]}
    if "loss" in case:
        inputs.update(loss=case["loss"], domain=case["domain"])
    tolerance = {
        "wang20 Alg.1": {"absolute": 1e-12, "relative": 0.0,
                         "justification": "block means of 2 values, distances between them, one exp and one scaled "
                                          "Gaussian: a few ulps on numbers of size <= 20; the orders of the radii and "
                                          "the subset choices (sorted uniforms) have no near-ties here"},
        "wang20 Alg.2": {"absolute": 0.0, "relative": 1e-12,
                         "justification": "one sort, a mean of at most n values and sinh of a tape value: a few ulps"},
        "wang20 Alg.3": {"absolute": 1e-12, "relative": 1e-10,
                         "justification": "<= 4 steps of sorts, trimmed means and sinh on O(1) values; the order of "
                                          "summation changes the last bits"},
        "wang20 Alg.4": {"absolute": 1e-9, "relative": 0.0,
                         "justification": "each smoothed truncation needs erfc and exp (or a quadrature in the tail "
                                          "regime) to ~1e-13; <= 8 steps on iterates of norm <= 1"},
    }[case["algorithm"]]
    vector = {"id": case["id"], "algorithm": case["algorithm"], "inputs": inputs, "parameters": case["parameters"],
              "tolerance": tolerance}
    vector["spec"] = cites(vector)
    return complete(vector, tape, seed=case["seed"], run=_run, compute=compute, population=case.get("population"))
