"""bst14's known-answer vector cases: Algorithm 1 (both schedules, four losses, two domains),
Algorithm 3 and Algorithm 4 on small instances, and how the reference computes each.

The cases are written to ``reference/vectors/bst14/`` by the one generator,
``python -m reference.vectors.generate`` (see the README for the format and the replay steps).
"""

from __future__ import annotations

import math

import numpy as np

from reference import bst14
from reference.bst14 import localization_algorithms, noisy_sgd
from reference.tape import NoiseTape, Recorder, Replay
from reference.vectors.build import build_domain, build_loss
from spec import bst14 as _spec

__all__ = ["CASES", "SPEC_IDS", "TOL_ALG1", "TOL_OUTPERT", "compute", "record", "build_vector"]

_SUBGRADIENT_LOSSES = {"Hinge"}

#: Tolerances. Algorithm 1 on these instances takes at most 35 steps; each step is a handful of
#: double operations on numbers of size <= sigma * |z| * eta = O(1), so an independent
#: implementation differs by a few ulps per step and the projection (a 1-Lipschitz map) does
#: not amplify it; the learning rate, computed from the printed formula in double, differs by
#: ~1e-16 relative. 1e-9 absolute (on iterates of norm <= 2) leaves a margin of > 10^5.
#: Algorithms 3-4 depend on theta*, which a replayer computes with its own solver: 1e-7.
TOL_ALG1 = {"absolute": 1e-9, "relative": 0.0,
            "justification": "<= 35 steps of O(1) double arithmetic; the projection is 1-Lipschitz; margin > 1e5 ulps"}
TOL_OUTPERT = {"absolute": 1e-7, "relative": 0.0,
               "justification": "theta* comes from the replayer's own solver (certified to ~1e-10 here); "
                                "the noise and projection add a few ulps"}


def _s3(v):
    return float(v) / math.sqrt(3)


CASES = (
    dict(id="bst14-alg1-linear-ball-lipschitz", algorithm="bst14 Alg.1", seed=101,
         data=[[0.6, 0.8], [1.0, 0.0], [0.0, -1.0]],
         loss={"name": "Linear", "bounds": {"data_norm": 1.0}},
         domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}},
         parameters={"epsilon": 1.0, "delta": 1e-3, "schedule": "lipschitz", "calibration": "printed", "runs": 2},
         theta_1=None),
    dict(id="bst14-alg1-hinge-box-lipschitz", algorithm="bst14 Alg.1", seed=102,
         data=[[_s3(1), _s3(1), _s3(-1), 1.0], [0.5, 0.0, 0.5, -1.0], [0.0, 0.6, 0.0, 1.0], [0.2, -0.4, 0.4, -1.0]],
         loss={"name": "Hinge", "bounds": {"feature_norm": 1.0}},
         domain={"name": "Box", "parameters": {"lower": [-0.5, -0.5, -0.5], "upper": [0.5, 0.5, 0.5]}},
         parameters={"epsilon": 2.0, "delta": 1e-2, "schedule": "lipschitz", "calibration": "printed", "runs": 1},
         theta_1=[[0.25, -0.25, 0.0]]),
    dict(id="bst14-alg1-logistic-ball-lipschitz", algorithm="bst14 Alg.1", seed=103,
         data=[[0.6, 0.0, 1.0], [0.0, 0.8, -1.0], [0.3, 0.4, 1.0], [-0.6, 0.8, -1.0], [0.0, -1.0, 1.0]],
         loss={"name": "Logistic", "bounds": {"feature_norm": 1.0}},
         domain={"name": "L2Ball", "parameters": {"radius": 2.0, "dim": 2}},
         parameters={"epsilon": 0.5, "delta": 1e-5, "schedule": "lipschitz", "calibration": "printed", "runs": 1},
         theta_1=[[0.5, -1.0]]),
    dict(id="bst14-alg1-quadratic-ball-strongly-convex", algorithm="bst14 Alg.1", seed=104,
         data=[[0.6, 0.8], [1.0, 0.0], [0.0, -1.0]],
         loss={"name": "HalfSquaredDistance", "bounds": {"data_norm": 1.0, "domain_radius": 1.0}},
         domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}},
         parameters={"epsilon": 1.0, "delta": 1e-3, "schedule": "strongly_convex", "calibration": "printed",
                     "runs": 2},
         theta_1=None),
    # The Lipschitz schedule divides by sigma, so even the rigorous (large) sigma leaves the
    # iterates inside the ball most of the time and the gradient visibly moves them; with the
    # strongly convex schedule at n = 4 every iterate would be clipped to the boundary.
    dict(id="bst14-alg1-quadratic-ball-lipschitz-rigorous", algorithm="bst14 Alg.1", seed=105,
         data=[[0.6, 0.8], [-1.0, 0.0], [0.0, 1.0], [0.8, -0.6]],
         loss={"name": "HalfSquaredDistance", "bounds": {"data_norm": 1.0, "domain_radius": 1.0}},
         domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}},
         parameters={"epsilon": 1.0, "delta": 1e-4, "schedule": "lipschitz", "calibration": "rigorous",
                     "runs": 1},
         theta_1=[[0.5, 0.5]]),
    dict(id="bst14-alg3-quadratic-ball", algorithm="bst14 Alg.3", seed=301,
         data=[[0.6, 0.8, 0.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]],
         loss={"name": "HalfSquaredDistance", "bounds": {"data_norm": 1.0, "domain_radius": 1.0}},
         domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 3}},
         parameters={"epsilon": 1.0, "zeta": 2.0, "solver_tolerance": 1e-12, "runs": 2}),
    dict(id="bst14-alg4-quadratic-ball-rejection", algorithm="bst14 Alg.4", seed=401,
         data=[[0.6, 0.8], [1.0, 0.0], [0.0, -1.0], [0.8, 0.6], [0.6, -0.8], [1.0, 0.0]],
         loss={"name": "HalfSquaredDistance", "bounds": {"data_norm": 1.0, "domain_radius": 1.0}},
         domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}},
         parameters={"epsilon": 4.0, "solver_tolerance": 1e-12, "runs": 2, "sampler": "QuadraticRejectionSampler"}),
)

#: Spec ids per algorithm: the ones each reference function reports on its result.
SPEC_IDS = {
    "bst14 Alg.1": list(noisy_sgd.SPEC_IDS),
    "bst14 Alg.3": list(localization_algorithms.ALG3_SPEC_IDS),
    "bst14 Alg.4": list(localization_algorithms.ALG4_SPEC_IDS),
}


def _tolist(a):
    return np.asarray(a, dtype=np.float64).tolist()


def compute(vector: dict, tape: NoiseTape) -> dict:
    """Run the reference on a vector's inputs with ``tape``; returns derived, checkpoints, output, flags."""
    inputs, prm = vector["inputs"], vector["parameters"]
    data = np.asarray(inputs["data"], dtype=np.float64)
    loss, domain = build_loss(inputs["loss"]), build_domain(inputs["domain"])
    src = Replay(tape)
    algorithm = vector["algorithm"]
    if algorithm == "bst14 Alg.1":
        res = bst14.noise_gd(
            data, loss=loss, domain=domain, epsilon=prm["epsilon"], delta=prm["delta"], schedule=prm["schedule"],
            calibration=prm["calibration"], runs=prm["runs"], theta_1=inputs["theta_1"], noise=src,
            transcript=True,
        )
        src.assert_consumed()
        steps = res.steps
        thetas = res.transcript["theta"]
        prev = np.concatenate([res.theta_1[None], thetas[:-1]])
        unprojected = prev - res.learning_rates[:, None, None] * res.transcript["G"]
        flags = [f"{prm['calibration']}-calibration"]
        if np.any(np.abs(unprojected - thetas) > 0):
            flags.append("projection-active")
        if inputs["loss"]["name"] in _SUBGRADIENT_LOSSES:
            flags.append("subgradient")
        picks = sorted({1, 2, steps // 2, steps})
        constants = loss.constants
        return {
            "derived": {
                "n": int(data.shape[0]), "p": int(domain.dim), "lipschitz": constants.lipschitz,
                "strong_convexity": constants.strong_convexity, "diameter": domain.diameter,
                "sigma": res.sigma, "steps": steps, "learning_rates": res.learning_rates.tolist(),
            },
            "checkpoints": [{"step": t, "iterate": f"theta_{t + 1}", "theta": _tolist(thetas[t - 1])} for t in picks],
            "output": {"theta": _tolist(res.theta)},
            "flags": flags,
        }
    if algorithm == "bst14 Alg.3":
        res = bst14.output_perturbation(
            data, loss=loss, domain=domain, epsilon=prm["epsilon"], zeta=prm["zeta"], runs=prm["runs"],
            solver_tolerance=prm["solver_tolerance"], noise=src,
        )
        src.assert_consumed()
        projected = bool(np.any(np.abs(domain.project(res.theta_star + res.noise) - (res.theta_star + res.noise)) > 0))
        return {
            "derived": {"n": int(data.shape[0]), "p": int(domain.dim), "lipschitz": loss.constants.lipschitz,
                        "strong_convexity": loss.constants.strong_convexity, "rate": res.rate,
                        "radius": res.radius, "theta_star": _tolist(res.theta_star)},
            "checkpoints": [{"step": 3, "iterate": "b", "theta": _tolist(res.noise)}],
            "output": {"theta": _tolist(res.centres), "radius": res.radius},
            "flags": ["solver-tolerance"] + (["projection-active"] if projected else []),
        }
    if algorithm == "bst14 Alg.4":
        sampler = {"QuadraticRejectionSampler": bst14.QuadraticRejectionSampler}[prm["sampler"]]()
        res = bst14.localization(
            data, loss=loss, domain=domain, epsilon=prm["epsilon"], runs=prm["runs"], sampler=sampler,
            solver_tolerance=prm["solver_tolerance"], noise=src,
        )
        src.assert_consumed()
        derived = {"n": int(data.shape[0]), "p": int(domain.dim), "lipschitz": loss.constants.lipschitz,
                   "strong_convexity": loss.constants.strong_convexity,
                   "theta_star": _tolist(res.localization.theta_star)}
        derived.update({k: float(v) for k, v in res.parameters.items()})
        # the coefficient the exact sampler used on C_0: epsilon_generic / (2 L diam(C_0)), with
        # diam(C_0) = min(||C||_2, 2 radius) (reference.domains.Intersection.diameter)
        derived["generic_coefficient_used"] = _spec.ALG_2.evaluate("coefficient", epsilon=res.parameters["epsilon_generic"], lipschitz=loss.constants.lipschitz,
            diameter=res.localization.localized_domain(0).diameter,
        )
        return {
            "derived": derived,
            "checkpoints": [{"step": 1, "iterate": "theta_0", "theta": _tolist(res.localization.centres)}],
            "output": {"theta": _tolist(res.theta)},
            "flags": ["solver-tolerance", "rejection-sampler"],
        }
    raise ValueError(f"algorithm ({algorithm!r}) must be one of {sorted(SPEC_IDS)}")


def record(vector: dict, seed: int) -> NoiseTape:
    """Draw a fresh tape for a new vector (fixed seed), by running the reference with a Recorder."""
    inputs, prm = vector["inputs"], vector["parameters"]
    data = np.asarray(inputs["data"], dtype=np.float64)
    loss, domain = build_loss(inputs["loss"]), build_domain(inputs["domain"])
    rec = Recorder(seed)
    if vector["algorithm"] == "bst14 Alg.1":
        bst14.noise_gd(data, loss=loss, domain=domain, epsilon=prm["epsilon"], delta=prm["delta"],
                       schedule=prm["schedule"], calibration=prm["calibration"], runs=prm["runs"],
                       theta_1=inputs["theta_1"], noise=rec)
    elif vector["algorithm"] == "bst14 Alg.3":
        bst14.output_perturbation(data, loss=loss, domain=domain, epsilon=prm["epsilon"], zeta=prm["zeta"],
                                  runs=prm["runs"], solver_tolerance=prm["solver_tolerance"], noise=rec)
    else:
        bst14.localization(data, loss=loss, domain=domain, epsilon=prm["epsilon"], runs=prm["runs"],
                           sampler=bst14.QuadraticRejectionSampler(), solver_tolerance=prm["solver_tolerance"],
                           noise=rec)
    return rec.tape


def build_vector(case: dict, tape: NoiseTape | None) -> dict:
    """The complete vector of ``case``; ``tape=None`` draws one from the case's seed."""
    inputs = {"data": case["data"], "loss": case["loss"], "domain": case["domain"]}
    if case["algorithm"] == "bst14 Alg.1":
        p = build_domain(case["domain"]).dim
        runs = case["parameters"]["runs"]
        t1 = case["theta_1"]
        if t1 is None:  # line 2: the domain's interior point (centre of the ball / box)
            t1 = [build_domain(case["domain"]).interior_point().tolist()] * runs
        inputs["theta_1"] = [[float(x) for x in row] for row in t1]
        assert np.shape(inputs["theta_1"]) == (runs, p)
    vector = {
        "id": case["id"], "algorithm": case["algorithm"], "spec": SPEC_IDS[case["algorithm"]],
        "inputs": inputs, "parameters": case["parameters"],
        "tolerance": TOL_ALG1 if case["algorithm"] == "bst14 Alg.1" else TOL_OUTPERT,
    }
    if tape is None:
        tape = record(vector, case["seed"])
    vector["tape"] = tape.to_dict()
    vector.update(compute(vector, tape))
    return vector
