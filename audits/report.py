"""The audit report: ``report.md`` for people, ``report.json`` for machines, PNG plots optionally.

A :class:`Report` collects the results recorded by audit tests (privacy audits and rate
audits; anything with ``to_dict()`` and a one-line ``str``), the outcome of each test and the
run's settings (tier, seed, family-wise and per-audit alpha). :meth:`Report.write` writes

* ``report.json``: settings, one entry per test (``nodeid``, ``marker``, ``outcome``,
  ``results``) and, under the single key ``timings``, the durations -- everything outside
  ``timings`` is a deterministic function of the seed and the code;
* ``report.md``: the same as a readable page, with the command that reproduces the run;
* plots (trade-off curves of profile audits, log-log fits of rate audits, one line per method
  for comparisons, :mod:`audits.comparison`) when matplotlib is importable (the optional
  ``report`` extra); otherwise the report says that plots were skipped. A comparison's table is
  also written into ``report.md``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Report", "matplotlib_available"]


def matplotlib_available() -> bool:
    """Whether matplotlib can be imported (plots are optional)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:120] or "audit"


@dataclass
class _Entry:
    nodeid: str
    marker: str | None
    results: list = field(default_factory=list)
    outcome: str | None = None
    duration: float = 0.0


class Report:
    """Results of one ``pytest audits`` run.

    Parameters
    ----------
    seed : int
        The run's global seed.
    tier : str
        ``smoke``, ``standard`` or ``deep``.
    family_alpha : float
        Family-wise false-alarm rate the run is held to.
    split : list of dict
        The budget split (:mod:`audits.budget`): per share its fraction, alpha, slots, collected
        audits and twins, and the per-audit alpha.
    audits, planted : int
        Number of collected tests marked ``audit`` and ``planted``.
    factor : float
        The tier's bug size (noise multiplier the run counts are designed to detect).
    power : float
        Target power of the run counts.
    """

    def __init__(self, *, seed: int, tier: str, family_alpha: float, split: list | None = None,
                 audits: int = 0, planted: int = 0, factor: float | None = None,
                 power: float | None = None):
        self.seed = seed
        self.tier = tier
        self.family_alpha = family_alpha
        self.split = list(split or [])
        self.audits = audits
        self.planted = planted
        self.factor = factor
        self.power = power
        self._entries: dict[str, _Entry] = {}

    def _entry(self, nodeid: str, marker: str | None = None) -> _Entry:
        if nodeid not in self._entries:
            self._entries[nodeid] = _Entry(nodeid, marker)
        elif marker and not self._entries[nodeid].marker:
            self._entries[nodeid].marker = marker
        return self._entries[nodeid]

    def add(self, nodeid: str, result, *, marker: str | None = None) -> None:
        """Record a result (an object with ``to_dict()``) for test ``nodeid``."""
        if not hasattr(result, "to_dict"):
            raise TypeError(f"result ({type(result).__name__}) must have a to_dict() method")
        self._entry(nodeid, marker).results.append(result)

    def outcome(self, nodeid: str, outcome: str, duration: float = 0.0, *, marker: str | None = None) -> None:
        """Set the pytest outcome of a test (and add its duration)."""
        e = self._entry(nodeid, marker)
        e.outcome = outcome
        e.duration += float(duration)

    def results(self, nodeid: str) -> list:
        e = self._entries.get(nodeid)
        return list(e.results) if e else []

    @property
    def entries(self) -> list[_Entry]:
        return list(self._entries.values())

    def command(self) -> str:
        return f"pytest audits --audit-tier={self.tier} --audit-seed={self.seed}"

    def to_dict(self, *, plots: list[str] | None = None, plots_note: str | None = None) -> dict:
        entries = []
        for e in self._entries.values():
            entries.append({
                "nodeid": e.nodeid,
                "marker": e.marker,
                "outcome": e.outcome,
                "results": [r.to_dict() for r in e.results],
            })
        return {
            "seed": self.seed,
            "tier": self.tier,
            "family_alpha": self.family_alpha,
            "budget_split": self.split,
            "audits": self.audits,
            "planted": self.planted,
            "bug_factor": self.factor,
            "power": self.power,
            "reproduce": self.command(),
            "entries": entries,
            "plots": plots or [],
            "plots_note": plots_note,
            "timings": {e.nodeid: round(e.duration, 6) for e in self._entries.values()},
        }

    # ----------------------------------------------------------------------------------------

    def write(self, directory) -> dict[str, Path]:
        """Write ``report.json``, ``report.md`` and (if possible) plots into ``directory``."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        plots: list[str] = []
        if matplotlib_available():
            plots = self._plots(out)
            note = None
        else:
            note = "matplotlib is not installed (optional 'report' extra): plots skipped"
        data = self.to_dict(plots=plots, plots_note=note)
        paths = {"json": out / "report.json", "md": out / "report.md"}
        paths["json"].write_text(json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n")
        paths["md"].write_text(self._markdown(data))
        return paths

    def _markdown(self, data: dict) -> str:
        lines = [
            "# dperm audit report",
            "",
            f"* tier: **{self.tier}**"
            + (f" (run counts sized to flag noise x{self.factor:g} at power {self.power:g})"
               if self.factor is not None and self.power is not None else ""),
            f"* seed: **{self.seed}** -- reproduce with `{self.command()}`",
            f"* family-wise false-alarm rate: at most **{self.family_alpha:g}** over "
            f"{self.audits} audits of correct mechanisms (Bonferroni), split into fixed shares "
            "and slots (`audits.budget`):",
            "",
            "| share | fraction of the budget | share alpha | slots | audits | planted twins | alpha per audit |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            *[f"| {r['share']} | {r['fraction']} | {r['share_alpha']:.4g} | {r['slots']} | {r['audits']} | "
              f"{r['planted']} | {r['per_audit_alpha']:.4g} |" for r in self.split],
            "",
            f"* planted-bug tests: {self.planted}, each at its share's per-audit alpha",
            "",
            "## Results",
            "",
            "| test | marker | outcome | result |",
            "| --- | --- | --- | --- |",
        ]
        for e in data["entries"]:
            summaries = "<br>".join(r.get("summary", "").replace("|", "\\|") for r in e["results"]) or "-"
            lines.append(f"| `{e['nodeid']}` | {e['marker'] or '-'} | {e['outcome'] or '-'} | {summaries} |")
        tables = [(e["nodeid"], r) for e in data["entries"] for r in e["results"]
                  if r.get("result_type") == "comparison"]
        if tables:
            lines += ["", "## Comparisons", ""]
            for nodeid, r in tables:
                lines += [f"`{nodeid}`: {r['quantity']} against {r['axis']} (means with "
                          f"{100 * (1 - r['alpha']):.6g}% intervals)", "", r["table"], ""]
                lines += [f"* {k} not run: {v}" for k, v in r.get("missing", {}).items()]
                lines += [f"* {note}" for note in r.get("notes", [])]
        lines += ["", "## Plots", ""]
        if data["plots"]:
            lines += [f"![{p}]({p})" for p in data["plots"]]
        else:
            lines.append(data["plots_note"] or "no plots (no profile or rate results)")
        lines += ["", "Durations are in `report.json` under `timings`.", ""]
        return "\n".join(lines)

    def _plots(self, out: Path) -> list[str]:  # pragma: no cover - needs matplotlib
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = []
        for e in self._entries.values():
            for i, r in enumerate(e.results):
                d = r.to_dict()
                fig = None
                if d.get("result_type") == "privacy" and d.get("curve"):
                    c = d["curve"]
                    fig, ax = plt.subplots(figsize=(5, 5))
                    ax.plot(c["claim_a"], c["claim_bound"], "k-", zorder=3, label="claimed bound B(a)")
                    ax.plot(c["q_hat"], c["p_hat"], ".", ms=3, label="empirical")
                    ax.plot(c["q_upper"], c["p_lower"], "r.", ms=3, label="band corner")
                    ax.set_xlabel(f"P[{'neighbour' if c['direction'] == 'dataset' else 'dataset'} in S]")
                    ax.set_ylabel(f"P[{c['direction']} in S]")
                    ax.set_title(d.get("mechanism") or "trade-off")
                    ax.legend(loc="lower right", fontsize=8)
                elif d.get("result_type") == "rate":
                    axes = list(d["slopes"])
                    fig, axs = plt.subplots(1, len(axes), figsize=(4 * len(axes), 3.5), squeeze=False)
                    for ax, axis in zip(axs[0], axes):
                        pts = [p for p in d["points"] if p["axis"] == axis]
                        x = [p["value"] for p in pts]
                        y = [p["mean"] for p in pts]
                        ax.loglog(x, y, "o", label="measured mean")
                        slope = d["slopes"][axis]
                        gx = math.exp(sum(math.log(v) for v in x) / len(x))
                        gy = math.exp(sum(math.log(v) for v in y) / len(y))
                        fit = [gy * (v / gx) ** slope for v in x]
                        ax.loglog(x, fit, "-", label=f"fit slope {slope:.2f}")
                        exp = d["expected"][axis]
                        ax.loglog(x, [gy * (v / gx) ** exp for v in x], "--", label=f"expected {exp:.2f}")
                        ax.set_xlabel(axis)
                        ax.legend(fontsize=8)
                elif d.get("result_type") == "comparison":
                    fig = _comparison_figure(plt, d)
                if fig is not None:
                    name = f"{_slug(e.nodeid)}-{i}.png"
                    fig.tight_layout()
                    fig.savefig(out / name, dpi=80)
                    plt.close(fig)
                    names.append(name)
        return names


def _axis_positions(values):
    """x positions for an axis that may contain ``inf`` (placed at twice the largest finite value)."""
    finite = [float(v) for v in values if v not in ("inf", float("inf"))]
    top = 2.0 * max(finite) if finite else 1.0
    xs = [top if v in ("inf", float("inf")) else float(v) for v in values]
    labels = ["inf" if v in ("inf", float("inf")) else f"{float(v):g}" for v in values]
    return xs, labels


def _comparison_figure(plt, d):  # pragma: no cover - needs matplotlib
    """One line per method (means with their intervals) and per reference line, against the axis."""
    xs, labels = _axis_positions(d["values"])
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, s in d["series"].items():
        low = [m - lo for m, lo in zip(s["mean"], s["ci_low"])]
        high = [hi - m for m, hi in zip(s["mean"], s["ci_high"])]
        ax.errorbar(xs, s["mean"], yerr=[low, high], marker="o", capsize=3, label=name)
    for name, ys in d.get("reference_lines", {}).items():
        ax.plot(xs, ys, "--", label=name)
    ax.set_yscale("log")
    ax.set_xscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels(labels)
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    ax.set_xlabel(d["axis"])
    ax.set_ylabel(d["quantity"])
    ax.set_title(d.get("name") or "comparison")
    ax.legend(fontsize=7)
    return fig
