"""bst14's known-answer vector cases: Algorithm 1 (both schedules, four losses, two domains),
Algorithm 2 (the exact rejection sampler), Algorithm 3 and Algorithm 4 on small instances, and how the
reference computes each.

The cases are written to ``reference/vectors/bst14/`` by the one generator,
``python -m reference.vectors.generate`` (docs/vectors/bst14.md gives the replay steps).
"""

from __future__ import annotations

import math

import numpy as np

from reference import bst14
from reference.bst14 import exponential_sampling, localization_algorithms, noisy_sgd
from reference.tape import NoiseTape, Replay
from reference.vectors.build import build_domain, build_loss, complete, float_list
from spec import bst14 as _spec

__all__ = ["CASES", "SPEC_IDS", "TOL_ALG1", "TOL_ALG2", "TOL_OUTPERT", "compute", "build_vector", "tolerance",
           "learning_rates_50_digits", "margins"]

_SUBGRADIENT_LOSSES = {"Hinge"}

#: Tolerances. Algorithm 1 on these instances takes at most 35 steps; each step is a handful of
#: double operations on numbers of size <= sigma * |z| * eta = O(1), so an independent
#: implementation differs by a few ulps per step and the projection (a 1-Lipschitz map) does
#: not amplify it; the learning rate, computed from the printed formula in double, differs by
#: ~1e-16 relative. 1e-9 absolute (on iterates of norm <= 2) leaves a margin of > 10^5.
#: Algorithms 3-4 depend on theta*, which a replayer computes with its own solver: 1e-7.
TOL_ALG1 = {"absolute": 1e-9, "relative": 0.0,
            "justification": "<= 35 steps of O(1) double arithmetic; the projection is 1-Lipschitz; margin > 1e5 ulps"}
TOL_ALG2 = {"absolute": 1e-12, "relative": 0.0,
            "justification": "one mean of n rows and one scaled Gaussian draw per attempt, on numbers of size <= 2: "
                             "a few ulps; every attempt is at least 1e-3 from the ball's boundary, so the acceptance "
                             "decisions are exact"}
TOL_OUTPERT = {"absolute": 1e-7, "relative": 0.0,
               "justification": "theta* comes from the replayer's own solver (certified to ~1e-10 here); "
                                "the noise and projection add a few ulps"}


#: Steps the Algorithm 1 tolerance is justified for; longer runs (``dperm run`` on your data) get
#: the same allowance per step (:func:`tolerance`).
TOL_ALG1_STEPS = 35


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
    # The subgradient convention at the kink: at theta_1 = (2, 0, 0) every record has margin
    # y <theta_1, x> = y (2 x_1) = 1 exactly (products of 2, +-0.5 and 0 are exact in any order),
    # so step 1 evaluates the hinge at its kink whichever record is drawn (subgradient 0, replay
    # step 6); the later margins fall on both sides of 1 and never on it (checked by the tests).
    dict(id="bst14-alg1-hinge-ball-kink", algorithm="bst14 Alg.1", seed=106,
         data=[[0.5, 0.6, 0.0, 1.0], [-0.5, 0.0, 0.8, -1.0], [0.5, -0.3, -0.6, 1.0], [-0.5, 0.4, -0.4, -1.0]],
         loss={"name": "Hinge", "bounds": {"feature_norm": 1.0}},
         domain={"name": "L2Ball", "parameters": {"radius": 2.0, "dim": 3}},
         parameters={"epsilon": 4.0, "delta": 1e-2, "schedule": "lipschitz", "calibration": "printed", "runs": 1},
         theta_1=[[2.0, 0.0, 0.0]]),
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
    # Algorithm 2 with its exact sampler for the half squared distance: a Gaussian N(mean, I/(c n)) drawn
    # until it lands in the ball. epsilon n = 48 makes the Gaussian narrow (sd 0.41 around a mean of norm
    # 0.23), so the tape is a handful of draws.
    dict(id="bst14-alg2-quadratic-ball-rejection", algorithm="bst14 Alg.2", seed=201,
         data=[[0.6, 0.8], [1.0, 0.0], [0.0, -1.0], [-0.6, 0.8], [0.8, -0.6], [-0.4, -0.4]],
         loss={"name": "HalfSquaredDistance", "bounds": {"data_norm": 1.0, "domain_radius": 1.0}},
         domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}},
         parameters={"epsilon": 8.0, "runs": 2, "sampler": "QuadraticRejectionSampler"}),
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
    "bst14 Alg.2": list(exponential_sampling.SPEC_IDS),
    "bst14 Alg.3": list(localization_algorithms.ALG3_SPEC_IDS),
    "bst14 Alg.4": list(localization_algorithms.ALG4_SPEC_IDS),
}


def learning_rates_50_digits(schedule: str, *, steps: int, **values: float) -> list[float]:
    """``eta(1), ..., eta(steps)`` of ``bst14.thm_II_4``, each a 50-digit evaluation rounded once to
    the nearest double (``record.evaluate``), as docs/vectors/README.md states for derived values.

    The reference's own iteration evaluates the same expression in double precision
    (:func:`reference.bst14.noisy_sgd.learning_rates`, within 2 ulps of these); the assumptions
    are checked once, at step 1.
    """
    name = "eta_lipschitz_sigma" if schedule == "lipschitz" else "eta_strongly_convex"
    record = _spec.THM_II_4
    first = record.evaluate(name, step=1, **values)
    return [first] + [record.evaluate(name, check=False, step=t, **values) for t in range(2, steps + 1)]


def margins(vector: dict) -> list[float]:
    """Hinge and Logistic vectors of Algorithm 1, one run: the margin ``y <theta_t, x_i>`` of the record
    sampled at each step ``t = 1..T`` (``theta_t`` before the step: ``inputs.theta_1``, then the
    iterates ``theta_{t}``), computed from the vector's own tape and checkpoint-free replay."""
    inputs = vector["inputs"]
    data = np.asarray(inputs["data"], dtype=np.float64)
    res = bst14.noise_gd(
        data, loss=build_loss(inputs["loss"]), domain=build_domain(inputs["domain"]),
        epsilon=vector["parameters"]["epsilon"], delta=vector["parameters"]["delta"],
        schedule=vector["parameters"]["schedule"], calibration=vector["parameters"]["calibration"],
        runs=vector["parameters"]["runs"], theta_1=inputs["theta_1"],
        noise=Replay(NoiseTape.from_dict(vector["tape"])), transcript=True,
    )
    before = np.concatenate([res.theta_1[None], res.transcript["theta"][:-1]])  # theta_t, t = 1..T
    index = [e["values"] for e in vector["tape"]["entries"] if e["label"] == noisy_sgd.LABEL_INDEX]
    out = []
    for t, picks in enumerate(index):
        i = picks[0]
        x, y = data[i, :-1], data[i, -1]
        out.append(float(y * (before[t, 0] @ x)))
    return out


def tolerance(vector: dict) -> dict:
    """The comparison tolerance of a vector (cases and ``dperm run`` vectors alike).

    Algorithm 1: :data:`TOL_ALG1` for up to :data:`TOL_ALG1_STEPS` steps on iterates of norm <= 2;
    a longer run or a larger domain gets the same allowance per step and per unit of norm
    (rounding differences add up over the steps, the projection does not amplify them).
    Algorithm 2: :data:`TOL_ALG2` with the quadratic sampler (1e-9 with another). Algorithms 3-4: :data:`TOL_OUTPERT` (the replayer's own solver dominates).
    """
    if vector["algorithm"] == "bst14 Alg.2":
        if vector["parameters"].get("sampler") == "QuadraticRejectionSampler":
            return dict(TOL_ALG2)
        return {"absolute": 1e-9, "relative": 1e-9,
                "justification": "an exact sampler's draws through a few double operations (and its acceptance "
                                 "tests): about 10^6 ulps for another order of operations"}
    if vector["algorithm"] != "bst14 Alg.1":
        return dict(TOL_OUTPERT)
    n = len(vector["inputs"]["data"])
    steps = int(_spec.THM_II_4.evaluate("iterates", n=n)) - 1
    scale = max(1.0, build_domain(vector["inputs"]["domain"]).max_norm / 2)
    factor = max(1.0, steps / TOL_ALG1_STEPS) * scale
    if factor == 1.0:
        return dict(TOL_ALG1)
    return {"absolute": TOL_ALG1["absolute"] * factor, "relative": 0.0,
            "justification": f"{steps} steps of O({2 * scale:g}) double arithmetic: the allowance of 1e-9 per "
                             f"{TOL_ALG1_STEPS} steps on iterates of norm <= 2, scaled to {steps} steps and norm "
                             f"<= {2 * scale:g}; the projection is 1-Lipschitz"}


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
            if prm["runs"] == 1 and 1.0 in margins({**vector, "tape": tape.to_dict()}):
                flags.append("kink")
        picks = sorted({1, 2, steps // 2, steps})
        constants = loss.constants
        if prm["schedule"] == "lipschitz":
            rates = learning_rates_50_digits("lipschitz", steps=steps, n=int(data.shape[0]), lipschitz=constants.lipschitz,
                                             dimension=int(domain.dim), diameter=domain.diameter, sigma=res.sigma)
        else:
            rates = learning_rates_50_digits("strongly_convex", steps=steps, n=int(data.shape[0]),
                                             strong_convexity=constants.strong_convexity)
        return {
            "derived": {
                "n": int(data.shape[0]), "p": int(domain.dim), "lipschitz": constants.lipschitz,
                "strong_convexity": constants.strong_convexity, "diameter": domain.diameter,
                "sigma": res.sigma, "steps": steps, "learning_rates": rates,
            },
            "checkpoints": [{"step": t, "iterate": f"theta_{t + 1}", "theta": float_list(thetas[t - 1])} for t in picks],
            "output": {"theta": float_list(res.theta)},
            "flags": flags,
        }
    if algorithm == "bst14 Alg.2":
        sampler = _sampler(prm["sampler"])
        res = bst14.exp_sampling(data, loss=loss, domain=domain, epsilon=prm["epsilon"], runs=prm["runs"],
                                 sampler=sampler, noise=src)
        src.assert_consumed()
        derived = {"n": int(data.shape[0]), "p": int(domain.dim), "lipschitz": loss.constants.lipschitz,
                   "diameter": domain.diameter}
        flags = []
        if not isinstance(sampler, bst14.GridWalkSampler):  # the exact samplers' coefficient (line 2)
            derived["coefficient"] = _spec.ALG_2.evaluate("coefficient", epsilon=prm["epsilon"],
                                                          lipschitz=loss.constants.lipschitz, diameter=domain.diameter)
        if isinstance(sampler, bst14.QuadraticRejectionSampler):
            derived["mean"] = float_list(data.mean(axis=0))
            flags.append("rejection-sampler")
        return {"derived": derived, "checkpoints": [], "output": {"theta": float_list(res.theta)}, "flags": flags}
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
                        "radius": res.radius, "theta_star": float_list(res.theta_star)},
            "checkpoints": [{"step": 3, "iterate": "b", "theta": float_list(res.noise)}],
            "output": {"theta": float_list(res.centres), "radius": res.radius},
            "flags": ["solver-tolerance"] + (["projection-active"] if projected else []),
        }
    if algorithm == "bst14 Alg.4":
        sampler = _sampler(prm["sampler"])
        res = bst14.localization(
            data, loss=loss, domain=domain, epsilon=prm["epsilon"], runs=prm["runs"], sampler=sampler,
            solver_tolerance=prm["solver_tolerance"], noise=src,
        )
        src.assert_consumed()
        derived = {"n": int(data.shape[0]), "p": int(domain.dim), "lipschitz": loss.constants.lipschitz,
                   "strong_convexity": loss.constants.strong_convexity,
                   "theta_star": float_list(res.localization.theta_star)}
        derived.update({k: float(v) for k, v in res.parameters.items()})
        # the coefficient the exact sampler used on C_0: epsilon_generic / (2 L diam(C_0)), with
        # diam(C_0) = min(||C||_2, 2 radius) (reference.domains.Intersection.diameter)
        derived["generic_coefficient_used"] = _spec.ALG_2.evaluate("coefficient", epsilon=res.parameters["epsilon_generic"], lipschitz=loss.constants.lipschitz,
            diameter=res.localization.localized_domain(0).diameter,
        )
        return {
            "derived": derived,
            "checkpoints": [{"step": 1, "iterate": "theta_0", "theta": float_list(res.localization.centres)}],
            "output": {"theta": float_list(res.theta)},
            "flags": ["solver-tolerance", "rejection-sampler"],
        }
    raise ValueError(f"algorithm ({algorithm!r}) must be one of {sorted(SPEC_IDS)}")


def _sampler(spec):
    """The sampler a vector names: ``"QuadraticRejectionSampler"`` or ``{"name": ..., "parameters": {...}}``
    (a class of ``reference.bst14`` and its keywords, as ``dperm run`` writes it)."""
    name, keywords = (spec, {}) if isinstance(spec, str) else (spec["name"], spec.get("parameters", {}))
    if name not in ("QuadraticRejectionSampler", "LinearBallSampler", "NetSampler", "GridWalkSampler"):
        raise ValueError(f"sampler ({name!r}) must be a sampler class of reference.bst14")
    return getattr(bst14, name)(**keywords)


def _run(vector: dict, rec) -> None:
    """Run the reference once on the vector's inputs, drawing from the recorder ``rec``."""
    inputs, prm = vector["inputs"], vector["parameters"]
    data = np.asarray(inputs["data"], dtype=np.float64)
    loss, domain = build_loss(inputs["loss"]), build_domain(inputs["domain"])
    if vector["algorithm"] == "bst14 Alg.1":
        bst14.noise_gd(data, loss=loss, domain=domain, epsilon=prm["epsilon"], delta=prm["delta"],
                       schedule=prm["schedule"], calibration=prm["calibration"], runs=prm["runs"],
                       theta_1=inputs["theta_1"], noise=rec)
    elif vector["algorithm"] == "bst14 Alg.2":
        bst14.exp_sampling(data, loss=loss, domain=domain, epsilon=prm["epsilon"], runs=prm["runs"],
                           sampler=_sampler(prm["sampler"]), noise=rec)
    elif vector["algorithm"] == "bst14 Alg.3":
        bst14.output_perturbation(data, loss=loss, domain=domain, epsilon=prm["epsilon"], zeta=prm["zeta"],
                                  runs=prm["runs"], solver_tolerance=prm["solver_tolerance"], noise=rec)
    else:
        bst14.localization(data, loss=loss, domain=domain, epsilon=prm["epsilon"], runs=prm["runs"],
                           sampler=bst14.QuadraticRejectionSampler(), solver_tolerance=prm["solver_tolerance"],
                           noise=rec)


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
    }
    vector["tolerance"] = tolerance(vector)
    return complete(vector, tape, seed=case["seed"], run=_run, compute=compute)
