"""Error and warning categories shared by every dperm package.

All value errors derive from :class:`ParameterError` (a :class:`ValueError`), so callers can
catch one class; wrong *types* raise the built-in :class:`TypeError`. Messages follow one
pattern: they name the parameter, show its value and state the rule, e.g.
``delta (1.5) must be in (0, 1)``.
"""

from __future__ import annotations

from typing import Mapping

__all__ = [
    "ParameterError",
    "PrivacyParameterError",
    "AssumptionError",
    "DataBoundError",
    "PrivacyLeakWarning",
]


class ParameterError(ValueError):
    """A parameter has the right type but a value outside its documented range."""


class PrivacyParameterError(ParameterError):
    """A privacy parameter (epsilon, delta, rho, sigma, sensitivity, ...) is invalid."""


class AssumptionError(ParameterError):
    """A theorem's assumption does not hold for the values supplied.

    Attributes
    ----------
    record : str
        Id of the spec record whose assumption failed.
    assumption : str
        Name of the failed assumption.
    values : dict
        The values (canonical names) the assumption was evaluated at.
    """

    def __init__(self, message: str, *, record: str = "", assumption: str = "",
                 values: Mapping[str, object] | None = None) -> None:
        super().__init__(message)
        self.record = record
        self.assumption = assumption
        self.values = dict(values or {})


class DataBoundError(ParameterError):
    """A data point lies outside the norm bounds a loss or mechanism declared.

    dperm never clips silently: clipping changes the algorithm, so it must be an explicit,
    opt-in transform chosen by the caller.
    """


class PrivacyLeakWarning(UserWarning):
    """Something weakens a privacy claim (a calibration outside its proven range, ...)."""
