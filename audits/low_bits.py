r"""The low-bit test of :func:`audits.privacy.audit_privacy`, in every mode.

Floating-point outputs leak through their low-order bits (Mironov 2012;
:func:`audits.statistics.bits_family`). The low-bit test looks for that leak beside the test of
the values, with its own share :data:`SHARE` of alpha, in point mode, in profile mode and with a
caller's event; the claim is refuted when either test rejects at its share (union bound).

What it needs from the runs (so that runs can be drawn and reduced in chunks):

* **Selection** (both datasets, the raw outputs of the selection runs): the first half learns the
  class scores (:func:`audits.statistics.bits_family`), the second half chooses the event
  (:func:`choose`). Needed whole, before any test run is counted.
* **Test** (both datasets): only the count of the chosen event,
  :func:`audits.event_tests.count` of each chunk of test outputs, summed, and the number of test
  runs per dataset.
* **Verdict**: from those counts, :func:`audits.event_tests.poisson_test` (point mode and user
  events, where test sample sizes are ``Poisson(m)``: the exact conditional test of
  :func:`audits.stats.poisson_point_bound`, with the auditor's ``arrivals``) or
  :func:`audits.event_tests.fixed_runs_test` (profile mode, where each dataset has exactly ``m``
  test runs: Clopper-Pearson bounds at ``alpha/2`` each, :func:`audits.stats.point_bound`,
  checked against the point claim and against the declared profile's ``B``).

When it runs (``low_bits``): ``None`` (default) runs it whenever the outputs are floating-point
values that are not discrete and the audit picks the statistic itself (no caller ``statistic``,
no ``logpdf``, no caller ``event``); ``True`` runs it in every case where the outputs are
such floats and refuses other outputs (ParameterError: they have no low bits beyond their values,
which the value test already tells apart); ``False`` never. Every result says which
(``families["low_bits"]["status"]``): never silently skipped.
"""

from __future__ import annotations

import numpy as np

from audits import selection
from audits import statistics as stat
from spec.errors import ParameterError

__all__ = ["SHARE", "TESTED", "OFF", "NOT_APPLICABLE", "NOT_RUN", "plan", "choose"]

#: Share of alpha the low-bit test spends when it runs beside the value test.
SHARE = 0.2

#: ``families["low_bits"]["status"]`` values.
TESTED, OFF, NOT_APPLICABLE, NOT_RUN = "tested", "off", "not applicable", "not run"


def plan(low_bits, *, statistic, mechanism, event, sel_d, sel_n, name) -> tuple[bool, str, str]:
    """``(run, status, reason)``: whether the low-bit test runs on these selection outputs, and
    what the result says when it does not (module docstring, "When it runs")."""
    floats = stat.continuous_float(sel_d, sel_n)
    if low_bits is False:
        return False, OFF, ("low_bits=False audits the real-valued idealisation" if floats else
                            "low_bits=False")
    if not floats:
        kind = "integers" if stat.integer_kind(sel_d) else "discrete values"
        if low_bits is True:
            raise ParameterError(
                f"low_bits (True): mechanism {name} returns {kind} ({sel_d.dtype}), which have no "
                "floating-point low bits to test beyond their values (the value test tells every "
                "value apart); leave low_bits at None")
        return False, NOT_APPLICABLE, f"the outputs are {kind}"
    if low_bits is True:
        return True, TESTED, ""
    if event is not None:
        return False, NOT_RUN, "a caller's event; low_bits=True adds it"
    if statistic is not None:
        return False, NOT_RUN, "a caller's statistic; low_bits=True adds it"
    if not stat.is_default(statistic, mechanism):
        return False, NOT_RUN, "the mechanism's logpdf statistic; low_bits=True adds it"
    return True, TESTED, ""


def choose(sel_d: np.ndarray, sel_n: np.ndarray, m: float, *, delta: float, alpha: float):
    """``(statistic, (threshold, side, direction))``: the low-bit classes learned on the first half
    of the selection runs, and the event chosen on the second half (scores fitted and judged on
    the same runs would make every rare class look decisive) for ``m`` test runs per dataset."""
    half = sel_d.shape[0] // 2
    learned = stat.bits_family(sel_d[:half], sel_n[:half])
    st, choice, _ = selection.select_among(learned, sel_d[half:], sel_n[half:], m, delta=delta, alpha=alpha)
    return st, choice
