"""zhang17's known-answer vector cases: Algorithm 1 (both noise laws; ridge, l2-regularised logistic
and logistic losses; Theorems 2 and 3) and Algorithm 2 (Welsch and sigmoid losses), and how the
reference computes each.

The cases are written to ``reference/vectors/zhang17/`` by the one generator,
``python -m reference.vectors.generate --paper zhang17`` (docs/vectors/zhang17.md gives the replay steps).
"""

from __future__ import annotations

import numpy as np

from reference import zhang17
from reference.losses import Loss
from reference.results import AlgorithmResult
from reference.tape import NoiseTape, Replay
from reference.vectors.build import build_loss, complete, float_list
from reference.zhang17 import output_perturbation, random_round_sgd

__all__ = ["CASES", "SPEC_IDS", "TOL_ALG1", "TOL_ALG2", "cites", "compute", "build_vector"]

#: Tolerances. Algorithm 1: at most 4 gradient steps over at most 10 rows of O(1) numbers, then
#: one noise vector of norm O(10): an independent implementation (another summation order, another
#: libm) differs by a few ulps of 10; 1e-9 absolute leaves a margin above 10^5. Algorithm 2: at most
#: 16 single-record steps of size eta (G + sigma z) with |sigma z| <= 100: ulps of 100 per step;
#: 1e-9 absolute still leaves a margin of 10^4.
TOL_ALG1 = {"absolute": 1e-9, "relative": 0.0,
            "justification": "<= 4 GD steps on <= 10 rows, one noise draw of norm O(10): margin > 1e5 ulps"}
TOL_ALG2 = {"absolute": 1e-9, "relative": 0.0,
            "justification": "<= 16 steps of O(100) double arithmetic; no projection: margin > 1e4 ulps"}


def _ridge(strength: float, label_bound: float = 1.0, feature_norm: float = 1.0) -> dict:
    """The ridge loss as a vector describes it (``reference.zhang17.instances.ridge_loss``'s radius)."""
    radius = 2 * label_bound / strength**0.5
    return {"name": "Regularised", "bounds": {"domain_radius": radius},
            "loss": {"name": "LeastSquares",
                     "bounds": {"feature_norm": feature_norm, "label_bound": label_bound, "domain_radius": radius}},
            "regulariser": {"name": "L2Regulariser", "bounds": {"strength": strength}}}


def _regularised_logistic(strength: float, radius: float) -> dict:
    return {"name": "Regularised", "bounds": {"domain_radius": radius},
            "loss": {"name": "Logistic", "bounds": {"feature_norm": 1.0}},
            "regulariser": {"name": "L2Regulariser", "bounds": {"strength": strength}}}


def _rows(seed: int, n: int, d: int, kind: str) -> list:
    """Rows with 6-decimal entries: features of norm in [0.3, 0.99] (x 0.7 for points), labels
    ``0.5 x_1 + U(-0.4, 0.4)`` (ridge, ``|y| <= 0.9``) or +-1 (logistic)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    x = np.round(x / np.linalg.norm(x, axis=1, keepdims=True) * rng.uniform(0.3, 0.99, size=(n, 1)), 6)
    if kind == "points":
        return np.round(0.7 * x, 6).tolist()
    if kind == "ridge":
        y = np.round(0.5 * x[:, 0] + rng.uniform(-0.4, 0.4, size=n), 6)
    else:
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return np.column_stack([x, y]).tolist()


CASES = (
    dict(id="zhang17-alg1-ridge-radial", algorithm="zhang17 Alg.1", seed=701, data=_rows(1, 10, 2, "ridge"),
         loss=_ridge(4.0), parameters={"epsilon": 16.0, "delta": 0.0, "runs": 2}),
    dict(id="zhang17-alg1-ridge-gaussian-analytic", algorithm="zhang17 Alg.1", seed=702, data=_rows(2, 8, 3, "ridge"),
         loss=_ridge(4.0), parameters={"epsilon": 1.0, "delta": 1e-3, "calibration": "analytic", "runs": 2}),
    dict(id="zhang17-alg1-regularised-logistic-gaussian-tight", algorithm="zhang17 Alg.1", seed=703,
         data=_rows(3, 8, 2, "logistic"), loss=_regularised_logistic(0.5, 3.5),
         parameters={"epsilon": 2.0, "delta": 1e-3, "steps": 4, "sensitivity_formula": "sensitivity_tight",
                     "calibration": "printed", "runs": 1}),
    dict(id="zhang17-alg1-logistic-convex-radial", algorithm="zhang17 Alg.1", seed=704,
         data=_rows(4, 8, 2, "logistic"), loss={"name": "Logistic", "bounds": {"feature_norm": 1.0}},
         parameters={"epsilon": 4.0, "delta": 0.0, "minimiser_norm": 3.0, "runs": 2}),
    # D = 5 bounds the minimiser's norm, 4.577 (reference.vectors.declared certifies it; D = 3 was false)
    dict(id="zhang17-alg1-logistic-convex-gaussian", algorithm="zhang17 Alg.1", seed=705,
         data=_rows(5, 6, 3, "logistic"), loss={"name": "Logistic", "bounds": {"feature_norm": 1.0}},
         parameters={"epsilon": 1.0, "delta": 1e-5, "minimiser_norm": 5.0, "steps": 2, "calibration": "printed",
                     "runs": 1}),
    dict(id="zhang17-alg2-welsch", algorithm="zhang17 Alg.2", seed=801, data=_rows(6, 4, 2, "points"),
         loss={"name": "Welsch", "bounds": {"scale": 1.0, "data_norm": 0.7}},
         parameters={"epsilon": 1.0, "delta": 1e-3, "runs": 2}),
    dict(id="zhang17-alg2-sigmoid", algorithm="zhang17 Alg.2", seed=802, data=_rows(7, 3, 2, "logistic"),
         loss={"name": "Sigmoid", "bounds": {"feature_norm": 1.0}},
         parameters={"epsilon": 0.5, "delta": 1e-2, "runs": 3}),
)

#: Spec ids per algorithm: the ones each reference function reports on its result.
SPEC_IDS = {
    "zhang17 Alg.1": list(output_perturbation.SPEC_IDS),
    "zhang17 Alg.2": list(random_round_sgd.SPEC_IDS),
}

#: The records of the setting Algorithm 1 does not run in: Theorem 3 and Lemma 2 are for convex losses
#: (steps and sensitivity growing with T), Theorem 2 and Lemma 3 for strongly convex ones.


def cites(vector: dict) -> list[str]:
    """The records a vector's run is an instance of: Algorithm 1 cites the theorem and lemma of the
    setting it runs in (``parameters.setting``, else strongly convex iff the loss's strong convexity
    is positive, as :func:`reference.zhang17.output_perturbation_gd` decides)."""
    ids = list(SPEC_IDS[vector["algorithm"]])
    if vector["algorithm"] != "zhang17 Alg.1":
        return ids
    setting = vector["parameters"].get("setting")
    if setting is None:
        setting = "strongly_convex" if build_loss(vector["inputs"]["loss"]).constants.strong_convexity > 0 else "convex"
    return [i for i in ids if i in output_perturbation.SETTING_SPEC_IDS[setting]]


_ALG1_KEYS = ("epsilon", "delta", "minimiser_norm", "setting", "steps", "sensitivity_formula", "calibration", "runs")


def _run(vector: dict, noise, *, keep: bool = False) -> tuple[Loss, AlgorithmResult]:
    inputs, prm = vector["inputs"], vector["parameters"]
    data = np.asarray(inputs["data"], dtype=np.float64)
    loss = build_loss(inputs["loss"])
    if vector["algorithm"] == "zhang17 Alg.1":
        kw = {k: prm[k] for k in _ALG1_KEYS if k in prm}
        return loss, zhang17.output_perturbation_gd(data, loss=loss, noise=noise, iterates=keep, **kw)
    return loss, zhang17.rrpsgd(data, loss=loss, epsilon=prm["epsilon"], delta=prm["delta"], runs=prm["runs"],
                                noise=noise, transcript=True if keep else None)


def compute(vector: dict, tape: NoiseTape) -> dict:
    """Run the reference on a vector's inputs with ``tape``; returns derived, checkpoints, output, flags."""
    src = Replay(tape)
    loss, res = _run(vector, src, keep=True)
    src.assert_consumed()
    c = loss.constants
    n, p = len(vector["inputs"]["data"]), int(res.theta.shape[1])
    if vector["algorithm"] == "zhang17 Alg.1":
        derived = {"n": n, "p": p, "lipschitz": c.lipschitz, "smoothness": c.smoothness,
                   "strong_convexity": c.strong_convexity, "minimiser_norm": res.minimiser_norm,
                   "learning_rate": res.learning_rate, "steps": res.steps, "sensitivity": res.sensitivity,
                   "gradient_evaluations": res.gradient_evaluations}
        flags = []
        if res.noise_law == "radial":
            derived["rate"] = res.rate
            flags.append("radial-noise")
        else:
            derived["sigma"] = res.sigma
            flags += ["gaussian-noise", f"{res.calibration}-calibration"]
        if res.sensitivity_formula == "sensitivity_tight":
            flags.append("tight-sensitivity")
        checkpoints = [{"step": t, "iterate": f"w_{t}", "theta": [float_list(res.iterates[t])]}
                       for t in range(1, res.steps + 1)]
        checkpoints.append({"step": 9, "iterate": "z", "theta": float_list(res.noise)})
        return {"derived": derived, "checkpoints": checkpoints, "output": {"theta": float_list(res.theta)},
                "flags": flags}
    derived = {"n": n, "p": p, "lipschitz": c.lipschitz, "smoothness": c.smoothness,
               "initial_gap": res.initial_gap, "sigma": res.sigma, "learning_rate": res.learning_rate,
               "max_rounds": res.max_rounds, "rounds": res.rounds.tolist()}
    steps = int(res.rounds.max())
    picks = sorted({1, max(1, steps // 2), steps})
    checkpoints = [{"step": t, "iterate": f"w_{t}", "theta": float_list(res.transcript["w"][t - 1])} for t in picks]
    return {"derived": derived, "checkpoints": checkpoints, "output": {"theta": float_list(res.theta)},
            "flags": ["printed-calibration"]}


def build_vector(case: dict, tape: NoiseTape | None) -> dict:
    """The complete vector of ``case``; ``tape=None`` draws one from the case's seed."""
    p = len(case["data"][0]) - (0 if case["loss"]["name"] == "Welsch" else 1)
    vector = {
        "id": case["id"], "algorithm": case["algorithm"],
        "inputs": {"data": case["data"], "loss": case["loss"], "domain": {"name": "Rp", "parameters": {"dim": p}}},
        "parameters": case["parameters"],
        "tolerance": TOL_ALG1 if case["algorithm"] == "zhang17 Alg.1" else TOL_ALG2,
    }
    vector["spec"] = cites(vector)
    return complete(vector, tape, seed=case["seed"], run=_run, compute=compute)
