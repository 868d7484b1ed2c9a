"""wang19's known-answer vector cases: Algorithms 1 (two losses, with and without a regulariser and a
constraint), 2, 3 (the squared l2 norm on an l2 ball of radius 2) and 4 on small instances, and how the
reference computes each.

The cases are written to ``reference/vectors/wang19/`` by the one generator,
``python -m reference.vectors.generate --paper wang19`` (see docs/vectors/ for the format and the replay
steps).
"""

from __future__ import annotations

import numpy as np

from reference import wang19
from reference.losses import L1Regulariser
from reference.tape import NoiseSource, NoiseTape, Replay
from reference.vectors.build import build_domain, build_loss, complete, float_list
from reference.wang19 import frank_wolfe, frank_wolfe_l1, mirror_descent, proximal_gradient

__all__ = ["CASES", "SPEC_IDS", "TOLERANCE", "compute", "build_vector"]

#: Every case runs at most 6 steps of O(1) double arithmetic; the prox, the projections, the Frank-Wolfe
#: averages and the normalised multiplicative update are non-expansive or smooth, so an independent
#: implementation differs by a few ulps per step (the exponential mechanism's argmax has no near-ties here).
TOLERANCE = {"absolute": 1e-9, "relative": 0.0,
             "justification": "<= 6 steps of O(1) double arithmetic through non-expansive or smooth maps; "
                              "margin > 1e5 ulps"}

_SIG = {"name": "Sigmoid", "bounds": {"feature_norm": 1.0}}
_DATA_XY = [[0.6, 0.8, 1.0], [1.0, 0.0, -1.0], [0.0, -1.0, 1.0], [-0.6, 0.8, -1.0], [0.28, -0.96, 1.0]]

CASES = (
    dict(id="wang19-dp-pgd-sigmoid-l1-penalty-ball", algorithm="wang19 Alg.1", seed=1901,
         data=_DATA_XY, loss=_SIG, domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}},
         parameters={"epsilon": 4.0, "delta": 1e-3, "calibration": "zcdp", "steps": "paper", "runs": 2,
                     "regulariser": {"name": "L1Regulariser", "strength": 0.05}}),
    dict(id="wang19-dp-pgd-cauchy-unconstrained", algorithm="wang19 Alg.1", seed=1902,
         data=[[0.6, 0.8, 0.5], [1.0, 0.0, -2.0], [0.0, -1.0, 0.3], [-0.8, 0.6, 1.0]],
         loss={"name": "Cauchy", "bounds": {"feature_norm": 1.0, "scale": 1.0}},
         domain={"name": "Rp", "parameters": {"dim": 2}},
         parameters={"epsilon": 2.0, "delta": 1e-5, "calibration": "zcdp", "steps": 3, "runs": 1}),
    dict(id="wang19-dp-fw-l2-sigmoid-ball", algorithm="wang19 Alg.2", seed=1903,
         data=_DATA_XY, loss=_SIG, domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}},
         parameters={"epsilon": 4.0, "delta": 1e-3, "calibration": "zcdp", "steps": 4, "learning_rate": "paper",
                     "runs": 2}),
    # Theorem 5 (gamma = 1/(2 L ||C||_2^2)) is for a centrally symmetric C: the l2 ball of radius 2, where
    # the squared l2 norm has modulus (||C||_2/2)^2 = 4 w.r.t. ||.||_C (the simplex is not symmetric).
    dict(id="wang19-dp-pmd-sigmoid-ball-squared-l2", algorithm="wang19 Alg.3", seed=1904,
         data=[[0.6, 0.8, 0.0, 1.0], [0.0, 0.6, -0.8, -1.0], [0.5, -0.5, 0.5, 1.0], [-0.6, 0.0, 0.8, -1.0]],
         loss={"name": "Sigmoid", "bounds": {"feature_norm": 1.0}},
         domain={"name": "L2Ball", "parameters": {"radius": 2.0, "dim": 3}},
         parameters={"epsilon": 4.0, "delta": 1e-3, "calibration": "zcdp", "steps": 3, "mirror": "squared_l2",
                     "runs": 2}),
    dict(id="wang19-dp-fw-l1-linear-l1-ball", algorithm="wang19 Alg.4", seed=1905,
         data=[[0.5, -0.2, 0.1], [0.3, 0.4, -0.6], [-0.1, 0.2, 0.7], [0.6, 0.0, 0.0], [0.2, -0.9, 0.1]],
         loss={"name": "Linear", "bounds": {"data_norm": 1.0}},
         domain={"name": "L1Ball", "parameters": {"radius": 1.0, "dim": 3}},
         parameters={"epsilon": 0.9, "delta": 1e-3, "composition": "lemma_1", "steps": 4, "learning_rate": "paper",
                     "runs": 2}),
)

#: Spec ids per algorithm: the ones each reference function reports on its result.
SPEC_IDS = {
    "wang19 Alg.1": list(proximal_gradient.SPEC_IDS),
    "wang19 Alg.2": list(frank_wolfe.SPEC_IDS),
    "wang19 Alg.3": list(mirror_descent.SPEC_IDS),
    "wang19 Alg.4": list(frank_wolfe_l1.SPEC_IDS),
}


def _regulariser(prm: dict) -> L1Regulariser | None:
    reg = prm.get("regulariser")
    if reg is None:
        return None
    if reg["name"] != "L1Regulariser":
        raise ValueError(f"regulariser ({reg['name']!r}) must be L1Regulariser")
    return L1Regulariser(strength=reg["strength"])


def _run(vector: dict, source: NoiseSource) -> tuple:
    inputs, prm = vector["inputs"], vector["parameters"]
    data = np.asarray(inputs["data"], dtype=np.float64)
    loss, domain = build_loss(inputs["loss"]), build_domain(inputs["domain"])
    common = dict(loss=loss, domain=domain, epsilon=prm["epsilon"], delta=prm["delta"], steps=prm["steps"],
                  runs=prm["runs"], x_1=inputs["theta_1"], noise=source, transcript=True)
    algorithm = vector["algorithm"]
    if algorithm == "wang19 Alg.1":
        res = wang19.dp_pgd(data, calibration=prm["calibration"], regulariser=_regulariser(prm), **common)
    elif algorithm == "wang19 Alg.2":
        res = wang19.dp_fw_l2(data, calibration=prm["calibration"], learning_rate=prm["learning_rate"], **common)
    elif algorithm == "wang19 Alg.3":
        res = wang19.dp_pmd(data, calibration=prm["calibration"], mirror=prm["mirror"], **common)
    elif algorithm == "wang19 Alg.4":
        res = wang19.dp_fw_l1(data, composition=prm["composition"], learning_rate=prm["learning_rate"], **common)
    else:
        raise ValueError(f"algorithm ({algorithm!r}) must be one of {sorted(SPEC_IDS)}")
    return res, data, loss, domain


def compute(vector: dict, tape: NoiseTape) -> dict:
    """Run the reference on a vector's inputs with ``tape``; returns derived, checkpoints, output, flags."""
    src = Replay(tape)
    res, data, loss, domain = _run(vector, src)
    src.assert_consumed()
    prm = vector["parameters"]
    constants = loss.constants
    derived = {"n": int(data.shape[0]), "p": int(domain.dim), "lipschitz": constants.lipschitz,
               "smoothness": constants.smoothness, "steps": res.steps, "learning_rate": res.learning_rate}
    algorithm = vector["algorithm"]
    if algorithm == "wang19 Alg.4":
        derived.update({"epsilon_step": res.epsilon_step, "coefficient": res.coefficient,
                        "candidates": res.candidates})
        flags = ["lemma-1-composition" if prm["composition"] == "lemma_1" else "zcdp-composition"]
    else:
        derived["sigma"] = res.sigma
        flags = [f"{prm['calibration']}-calibration"]
        if algorithm == "wang19 Alg.2":
            derived["gaussian_width"] = res.gaussian_width
        if algorithm == "wang19 Alg.3":
            derived["modulus"] = res.modulus
            flags.append(f"mirror-{prm['mirror'].replace('_', '-')}")
        if algorithm == "wang19 Alg.1":
            xs = np.concatenate([res.x_1[None], res.transcript["x"]])
            plain = xs[:-1] - res.learning_rate * res.transcript["noisy_gradient"]
            if prm.get("regulariser") is not None:
                flags.append("regulariser-l1")
            if np.any(np.abs(plain - xs[1:]) > 0):
                flags.append("projection-active")
    steps = res.steps
    picks = sorted({1, 2, steps // 2, steps} - {0})
    return {
        "derived": derived,
        "checkpoints": [{"step": t, "iterate": f"x_{t + 1}", "theta": float_list(res.transcript["x"][t - 1])}
                        for t in picks],
        "output": {"theta": float_list(res.x), "x_next": float_list(res.x_next), "index": res.index.tolist()},
        "flags": flags,
    }


def build_vector(case: dict, tape: NoiseTape | None) -> dict:
    """The complete vector of ``case``; ``tape=None`` draws one from the case's seed."""
    domain = build_domain(case["domain"])
    runs = case["parameters"]["runs"]
    start = [domain.interior_point().tolist()] * runs  # the default start point, written out
    inputs = {"data": case["data"], "loss": case["loss"], "domain": case["domain"],
              "theta_1": [[float(x) for x in row] for row in start]}
    vector = {
        "id": case["id"], "algorithm": case["algorithm"], "spec": SPEC_IDS[case["algorithm"]],
        "inputs": inputs, "parameters": case["parameters"], "tolerance": TOLERANCE,
    }
    return complete(vector, tape, seed=case["seed"], run=_run, compute=compute)
