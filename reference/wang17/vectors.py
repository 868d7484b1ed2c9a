"""wang17's known-answer vector cases: Algorithm 1 (DP-SVRG, Huber regression with an l2
regulariser), Algorithm 2 (DP-SVRG++, the same instance), Algorithm 3 (DP-AccMD on the l2 ball with the squared-l2 map and on the l1 ball
with the p-norm map) and Algorithm 4 (DP-GD, last and uniformly random iterate), on small
instances, and how the reference computes each.

The cases are written to ``reference/vectors/wang17/`` by the one generator,
``python -m reference.vectors.generate --paper wang17`` (see docs/vectors/ for the format and the
replay steps). The noise of every vector is the reference's proven calibration: the
accountant sigma of ``wang17.thm_4_1`` / ``wang17.thm_4_3`` for DP-SVRG and DP-SVRG++ (a
bisection, so a replayer takes ``sigma`` from ``derived``) and the zCDP closed form of
``wang17.thm_5_3`` / ``wang17.thm_6_1`` for the full-batch algorithms (a formula a replayer can
recompute).
"""

from __future__ import annotations

import numpy as np

from reference import wang17
from reference.losses import L2Regulariser
from reference.tape import NoiseTape, Replay
from reference.vectors.build import build_domain, build_loss, complete, float_list
from reference.wang17 import accelerated_mirror_descent, gradient_descent, svrg, svrg_plus

__all__ = ["CASES", "SPEC_IDS", "TOLERANCE", "cites", "compute", "build_vector"]

#: Tolerance. Every case takes at most 12 steps (DP-SVRG: 2 epochs of 3 inner steps, 6 index
#: draws; DP-AccMD 12, DP-GD 8 steps) of O(1)-sized double arithmetic: a full gradient (a sum of
#: n <= 5 terms), a prox or projection (1-Lipschitz) and, for the l1 ball, the exact dual solve of
#: the Minkowski step and the p-norm mirror step (bisection to machine precision): an independent
#: implementation differs by a few ulps per step, amplified at most by the step's Lipschitz
#: constant (<= 2 for these step sizes). 1e-9 absolute on coordinates of size <= 2 leaves > 1e5 ulps.
TOLERANCE = {"absolute": 1e-9, "relative": 0.0,
             "justification": "<= 12 steps of O(1) double arithmetic through 1-Lipschitz prox/projection maps; "
                              "margin > 1e5 ulps"}

_HUBER = {"name": "Huber", "bounds": {"feature_norm": 1.0, "label_bound": 1.0, "width": 1.0}}
_PSEUDO_HUBER = {"name": "PseudoHuberDistance", "bounds": {"lipschitz": 1.0, "width": 1.0, "data_norm": 1.0}}
_WELSCH = {"name": "WelschDistance", "bounds": {"lipschitz": 1.0, "width": 1.0, "data_norm": 1.0}}

CASES = (
    # Step size and epoch length given: privacy depends only on T m and sigma, so the vector exercises
    # every line with 6 steps. It cites only the algorithm and its privacy records (cites()): Theorem
    # 4.2's inequality (4) needs eta < 1/(24 L) and m >= 385 here (eta = 1/(48 L), mu = 0.5, L = 1),
    # i.e. 770 noisy steps, and eta = 0.1 breaks it.
    dict(id="wang17-alg1-huber-ridge", algorithm="wang17 Alg.1", seed=1101,
         data=[[0.6, 0.8, 0.5], [1.0, 0.0, -0.25], [0.0, -1.0, 1.0], [-0.6, 0.8, -0.5]],
         loss=_HUBER, domain={"name": "Rp", "parameters": {"dim": 2}},
         regulariser={"name": "L2Regulariser", "bounds": {"strength": 0.5}},
         parameters={"epsilon": 10.0, "delta": 1e-5, "epochs": 2, "epoch_length": 3, "learning_rate": 0.1,
                     "calibration": "accountant", "runs": 2}),
    # DP-SVRG++ with Theorem 4.4's step 1/(13 L): epochs of 2 and 4 steps (m = 1), 6 noisy steps in all.
    dict(id="wang17-alg2-huber-ridge", algorithm="wang17 Alg.2", seed=1201,
         data=[[0.6, 0.8, 0.5], [1.0, 0.0, -0.25], [0.0, -1.0, 1.0], [-0.6, 0.8, -0.5]],
         loss=_HUBER, domain={"name": "Rp", "parameters": {"dim": 2}},
         regulariser={"name": "L2Regulariser", "bounds": {"strength": 0.5}},
         parameters={"epsilon": 10.0, "delta": 1e-5, "epochs": 2, "epoch_length": 1, "calibration": "accountant",
                     "runs": 2}),
    dict(id="wang17-alg3-pseudo-huber-l2-ball", algorithm="wang17 Alg.3", seed=1301,
         data=[[0.6, 0.8, 0.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.6, -0.8]],
         loss=_PSEUDO_HUBER, domain={"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 3}},
         parameters={"epsilon": 10.0, "delta": 1e-5, "steps": 12, "mirror_map": "squared_l2", "runs": 2}),
    dict(id="wang17-alg3-pseudo-huber-l1-ball", algorithm="wang17 Alg.3", seed=1302,
         data=[[0.6, 0.8, 0.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.6, -0.8]],
         loss=_PSEUDO_HUBER, domain={"name": "L1Ball", "parameters": {"radius": 1.0, "dim": 3}},
         parameters={"epsilon": 10.0, "delta": 1e-5, "steps": 12, "mirror_map": "p_norm", "runs": 2}),
    dict(id="wang17-alg4-pseudo-huber-last", algorithm="wang17 Alg.4", seed=1401,
         data=[[0.6, 0.8], [1.0, 0.0], [0.0, -1.0], [-0.6, 0.8]],
         loss=_PSEUDO_HUBER, domain={"name": "Rp", "parameters": {"dim": 2}},
         parameters={"epsilon": 10.0, "delta": 1e-5, "steps": 8, "output": "last", "runs": 2}),
    dict(id="wang17-alg4-welsch-random", algorithm="wang17 Alg.4", seed=1402,
         data=[[0.6, 0.8], [1.0, 0.0], [0.0, -1.0], [-0.6, 0.8]],
         loss=_WELSCH, domain={"name": "Rp", "parameters": {"dim": 2}},
         parameters={"epsilon": 10.0, "delta": 1e-5, "steps": 8, "output": "random", "runs": 3}),
)

#: Spec ids per algorithm: the ones each reference function reports on its result.
SPEC_IDS = {
    "wang17 Alg.1": list(svrg.SPEC_IDS_1),
    "wang17 Alg.2": list(svrg_plus.SPEC_IDS_2),
    "wang17 Alg.3": list(accelerated_mirror_descent.SPEC_IDS),
    "wang17 Alg.4": list(gradient_descent.SPEC_IDS),
}


def cites(vector: dict) -> list[str]:
    """The records a vector's run is an instance of (a utility theorem only where its hypotheses hold).

    * Algorithm 1 cites Theorem 4.2 only when it runs Theorem 4.2's own eta, m and T (no
      ``learning_rate``, ``epoch_length``, ``epochs`` given): inequality (4) then holds; an eta
      above 1/(12 L) breaks it (``reference.vectors.declared`` refuses such a vector).
    * Algorithm 2 cites Theorem 4.4 only when it runs Theorem 4.4's eta = 1/(13 L).
    * Algorithm 4 cites Theorem 6.2 (PL, last iterate) only for ``output="last"`` on a strongly
      convex loss (the only PL certificate here; a G-Lipschitz function that is PL on R^p is bounded,
      which neither pseudo-Huber nor Welsch is), and Theorem 6.3 only for ``output="random"``.
    """
    algorithm, prm = vector["algorithm"], vector["parameters"]
    ids = list(SPEC_IDS[algorithm])
    drop = set()
    if algorithm == "wang17 Alg.1" and any(prm.get(k) is not None for k in ("learning_rate", "epoch_length", "epochs")):
        drop.add("wang17.thm_4_2")
    if algorithm == "wang17 Alg.2" and prm.get("learning_rate") is not None:
        drop.add("wang17.thm_4_4")
    if algorithm == "wang17 Alg.4":
        last = (prm.get("output") or "last") == "last"
        if not last or build_loss(vector["inputs"]["loss"]).constants.strong_convexity <= 0:
            drop.add("wang17.thm_6_2")
        if last:
            drop.add("wang17.thm_6_3")
    return [i for i in ids if i not in drop]


def _regulariser(inputs):
    reg = inputs["regulariser"]
    if reg["name"] != "L2Regulariser":
        raise ValueError(f"regulariser name ({reg['name']!r}) must be L2Regulariser")
    return L2Regulariser(**reg["bounds"])


def _run(vector: dict, src):
    """The reference on a vector's inputs with the noise source ``src`` (transcripts kept)."""
    inputs, prm = vector["inputs"], vector["parameters"]
    data = np.asarray(inputs["data"], dtype=np.float64)
    loss, domain = build_loss(inputs["loss"]), build_domain(inputs["domain"])
    algorithm = vector["algorithm"]
    if algorithm == "wang17 Alg.1":
        return data, loss, domain, wang17.dp_svrg(
            data, loss=loss, regulariser=_regulariser(inputs), epsilon=prm["epsilon"], delta=prm["delta"],
            epochs=prm["epochs"], epoch_length=prm["epoch_length"], learning_rate=prm["learning_rate"],
            calibration=prm["calibration"], runs=prm["runs"], noise=src, transcript=True)
    if algorithm == "wang17 Alg.2":
        return data, loss, domain, wang17.dp_svrg_plus(
            data, loss=loss, regulariser=_regulariser(inputs), epsilon=prm["epsilon"], delta=prm["delta"],
            epochs=prm["epochs"], epoch_length=prm["epoch_length"], learning_rate=prm.get("learning_rate"),
            calibration=prm["calibration"], runs=prm["runs"], noise=src, transcript=True)
    if algorithm == "wang17 Alg.3":
        return data, loss, domain, wang17.dp_accmd(
            data, loss=loss, domain=domain, epsilon=prm["epsilon"], delta=prm["delta"], steps=prm["steps"],
            mirror_map=prm["mirror_map"], runs=prm["runs"], noise=src, transcript=True)
    if algorithm == "wang17 Alg.4":
        return data, loss, domain, wang17.dp_gd(
            data, loss=loss, epsilon=prm["epsilon"], delta=prm["delta"], steps=prm["steps"], output=prm["output"],
            runs=prm["runs"], noise=src, transcript=True)
    raise ValueError(f"algorithm ({algorithm!r}) must be one of {sorted(SPEC_IDS)}")


def compute(vector: dict, tape: NoiseTape) -> dict:
    """Run the reference on a vector's inputs with ``tape``; returns derived, checkpoints, output, flags."""
    src = Replay(tape)
    data, loss, domain, res = _run(vector, src)
    src.assert_consumed()
    algorithm = vector["algorithm"]
    derived = {"n": int(data.shape[0]), "p": int(domain.dim), "lipschitz": loss.constants.lipschitz,
               "smoothness": loss.constants.smoothness, "sigma": res.sigma}
    if algorithm in ("wang17 Alg.1", "wang17 Alg.2"):
        K = res.noisy_steps
        derived.update(steps=K, epochs=res.epochs, epoch_length=res.epoch_length, learning_rate=res.learning_rate,
                       implied_constant=res.implied_constant, gradient_evaluations=res.gradient_evaluations)
        # epoch s runs m steps (Algorithm 1) or 2^s m (Algorithm 2); ends[s - 1] is its last step
        lengths = [res.epoch_length * (2 ** s if algorithm == "wang17 Alg.2" else 1) for s in range(1, res.epochs + 1)]
        ends = np.cumsum(lengths).tolist()

        def name(k):  # inner iterate k (1-based) is x^s_t
            s = next(i for i, end in enumerate(ends) if k <= end) + 1
            return f"x_{s}_{k - (ends[s - 2] if s > 1 else 0)}"

        checkpoints = [{"step": k, "iterate": name(k), "theta": float_list(res.transcript["x"][k - 1])}
                       for k in sorted({1, 2, lengths[0], K})]
        checkpoints += [{"step": ends[s - 1], "iterate": f"snapshot_{s}", "theta": float_list(res.snapshots[s - 1])}
                        for s in range(1, res.epochs + 1)]
        return {"derived": derived, "checkpoints": checkpoints, "output": {"theta": float_list(res.theta)},
                "flags": ["accountant-calibration"]}
    T = res.steps
    picks = sorted({1, 2, T // 2, T})
    derived["steps"] = T
    if algorithm == "wang17 Alg.3":
        derived.update(alphas=res.alphas.tolist(), couplings=res.couplings.tolist(),
                       y_step_smoothness=res.y_step_smoothness)
        checkpoints = [{"step": t, "iterate": name, "theta": float_list(res.transcript[key][t - 1])}
                       for t in picks for key, name in (("y", f"y_{t}"), ("z", f"z_{t}"))]
        y = res.transcript["y"]
        on_boundary = np.isclose(_gauge(domain, y), 1.0, rtol=0, atol=1e-12)
        flags = ["zcdp-calibration"]
        if vector["parameters"]["mirror_map"] == "p_norm":
            flags.append("p-norm-mirror-map")
        if np.any(on_boundary):
            flags.append("projection-active")
        return {"derived": derived, "checkpoints": checkpoints, "output": {"theta": float_list(res.theta)},
                "flags": flags}
    derived["learning_rate"] = res.learning_rate
    checkpoints = [{"step": t, "iterate": f"x_{t}", "theta": float_list(res.transcript["x"][t])} for t in picks]
    flags = ["zcdp-calibration"]
    output = {"theta": float_list(res.theta)}
    if res.output == "random":
        derived["output_index"] = [int(i) for i in res.index]
        flags.append("random-iterate")
    return {"derived": derived, "checkpoints": checkpoints, "output": output, "flags": flags}


def _gauge(domain, y):
    """``||y||_C``: ||y||_2 / R on the l2 ball, ||y||_1 / R on the l1 ball."""
    order = 2 if type(domain).__name__ == "L2Ball" else 1
    return np.linalg.norm(y, ord=order, axis=-1) / domain.radius


def build_vector(case: dict, tape: NoiseTape | None) -> dict:
    """The complete vector of ``case``; ``tape=None`` draws one from the case's seed."""
    inputs = {"data": case["data"], "loss": case["loss"], "domain": case["domain"]}
    if "regulariser" in case:
        inputs["regulariser"] = case["regulariser"]
    vector = {
        "id": case["id"], "algorithm": case["algorithm"],
        "inputs": inputs, "parameters": case["parameters"], "tolerance": TOLERANCE,
    }
    vector["spec"] = cites(vector)
    return complete(vector, tape, seed=case["seed"], run=_run, compute=compute)
