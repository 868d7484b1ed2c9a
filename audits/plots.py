"""Plots of the audit report: what to draw (pure Python, tested without matplotlib) and the drawing.

:func:`figures` turns the report's entries into figure descriptions -- title, axis labels, the
series with their confidence bars -- and :func:`draw` renders one with matplotlib (the optional
``report`` extra). Keeping the decisions apart from the drawing lets CI, which installs only the
``test`` extra, test every decision that makes a plot read right:

* **One axis convention** for privacy regions: x is ``P[M(D') in S]`` (the neighbour), y is
  ``P[M(D) in S]`` (the data set), whichever direction the audit's event tests; the claim's
  boundary is drawn in the same coordinates and the region the claim forbids is shaded.
* **Readable titles**: the test's name and what is plotted, wrapped to the figure's width.
* **Rate plots** have a title, a y label, the measured means with their confidence bars
  (``ci_low``, ``ci_high`` of each point), the fitted slope with its interval and the theorem's
  exponent; x ticks at the grid values only (no overlapping minor labels on log axes).
* **No duplicate images**: :func:`figures` drops a figure whose description equals an earlier
  one's (the report then points to the first), and :meth:`audits.report.Report.write` also skips
  byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import textwrap

from spec.jsonable import restore

__all__ = ["figures", "privacy_figure", "rate_figures", "comparison_figure", "draw", "TITLE_WIDTH", "short_name"]

#: Characters per title line (the figures are 6 inches wide at 8-point titles).
TITLE_WIDTH = 60

_LABEL_DATASET = "P[M(D) in S]  (data set D)"
_LABEL_NEIGHBOUR = "P[M(D') in S]  (neighbour D')"


def short_name(nodeid: str) -> str:
    """``audits/suite/bst14/test_bst14_privacy.py::test_alg3_privacy`` -> ``test_bst14_privacy.py::test_alg3_privacy``."""
    path, sep, rest = nodeid.partition("::")
    return path.rsplit("/", 1)[-1] + sep + rest


def _title(*parts: str) -> str:
    lines = []
    for part in parts:
        if part:
            lines += textwrap.wrap(part, TITLE_WIDTH) or [""]
    return "\n".join(lines)


def privacy_figure(nodeid: str, d: dict) -> dict | None:
    """The trade-off plot of a profile-mode privacy result ``d`` (its ``curve``), or None."""
    c = d.get("curve")
    if not c:
        return None
    dataset_side = c["direction"] == "dataset"  # the event's probability on D is the y of the claim
    if dataset_side:
        points = (c["q_hat"], c["p_hat"])
        corners = (c["q_upper"], c["p_lower"])
        boundary = (c["claim_a"], c["claim_bound"])
        forbidden = "above"
    else:  # the claim bounds P[M(D') in S] by B(P[M(D) in S]): swap to keep x = neighbour
        points = (c["p_hat"], c["q_hat"])
        corners = (c["p_lower"], c["q_upper"])
        boundary = (c["claim_bound"], c["claim_a"])
        forbidden = "right"
    margin, scale = d.get("profile_margin"), d.get("profile_scale")
    verdict = "REFUTED" if d.get("violated") else "not refuted"
    shown = (f"profile scale {float(scale):.3g} (margin {float(margin):+.2g})" if scale is not None else
             f"profile margin {float(margin):+.2g}" if margin is not None else "")
    detail = (f"claim ({d['epsilon']:g}, {d['delta']:g})-DP + declared profile; {shown}; {verdict}"
              if margin is not None else f"claim ({d['epsilon']:g}, {d['delta']:g})-DP; {verdict}")
    return {
        "kind": "privacy",
        "title": _title(short_name(nodeid), f"privacy region of {d.get('mechanism') or 'the mechanism'}", detail),
        "xlabel": _LABEL_NEIGHBOUR,
        "ylabel": _LABEL_DATASET,
        "series": [
            {"label": "claimed boundary B", "x": list(boundary[0]), "y": list(boundary[1]), "style": "line",
             "forbidden": forbidden},
            {"label": "estimate: empirical event probabilities", "x": list(points[0]), "y": list(points[1]),
             "style": "points"},
            {"label": f"lower bound: confidence corners at {100 * (1 - d['alpha']):.4g}% (refute if outside)",
             "x": list(corners[0]), "y": list(corners[1]), "style": "corners"},
        ],
        "limits": [0.0, 1.0],
    }


def rate_figures(nodeid: str, d: dict) -> dict | None:
    """The log-log plot of a rate result ``d``: one panel per grid axis, or None without points."""
    axes = list(d.get("slopes") or {})
    if not axes or not d.get("points"):
        return None
    panels = []
    for axis in axes:
        pts = [p for p in d["points"] if p["axis"] == axis]
        if len(pts) < 2:
            continue
        x = [float(p["value"]) for p in pts]
        mean = [float(p["mean"]) for p in pts]
        lo, hi = d["intervals"][axis]
        slope, exponent = float(d["slopes"][axis]), float(d["expected"][axis])
        # lines through the geometric centre of the measured means
        gx = math.exp(sum(math.log(v) for v in x) / len(x))
        gy = math.exp(sum(math.log(v) for v in mean if v > 0) / max(1, sum(v > 0 for v in mean)))
        panels.append({
            "axis": axis,
            "xlabel": f"{axis} (log scale)",
            "ticks": x,
            "series": [
                {"label": "measured mean with its confidence interval", "x": x, "y": mean,
                 "low": [float(p["ci_low"]) for p in pts], "high": [float(p["ci_high"]) for p in pts],
                 "style": "errorbar"},
                {"label": f"fitted slope {slope:+.3g} [{lo:+.3g}, {hi:+.3g}]", "x": x,
                 "y": [gy * (v / gx) ** slope for v in x], "style": "line"},
                {"label": f"theorem's exponent {exponent:+.3g}", "x": x,
                 "y": [gy * (v / gx) ** exponent for v in x], "style": "dashed"},
            ],
        })
    if not panels:
        return None
    verdict = "passed" if d.get("passed") else f"FAILED ({', '.join(d.get('failed_axes') or [])})"
    return {
        "kind": "rate",
        "title": _title(short_name(nodeid), f"{d.get('kind', '')}-bound rate: {d.get('name') or 'utility'}",
                        f"slopes vs the record's exponents, {verdict}"),
        "ylabel": "measured quantity (mean over runs, log scale)",
        "panels": panels,
    }


def comparison_figure(nodeid: str, d: dict) -> dict | None:
    """One line per method of a comparison result ``d`` (means with their intervals), or None.

    An infinite axis value (a light tail, ``inf``) sits at twice the largest finite one, labelled
    ``inf``. ``d`` may come straight from ``to_dict`` (its infinities null, listed in ``"infinite"``).
    """
    d = restore(d)
    values = d.get("values") or []
    if not values or not d.get("series"):
        return None
    finite = [float(v) for v in values if v not in ("inf", float("inf"))]
    top = 2.0 * max(finite) if finite else 1.0
    x = [top if v in ("inf", float("inf")) else float(v) for v in values]
    labels = ["inf" if v in ("inf", float("inf")) else f"{float(v):g}" for v in values]
    series = [{"label": name, "x": x, "y": [float(m) for m in s["mean"]], "low": [float(v) for v in s["ci_low"]],
               "high": [float(v) for v in s["ci_high"]], "style": "errorbar"} for name, s in d["series"].items()]
    series += [{"label": name, "x": x, "y": [float(v) for v in ys], "style": "dashed"}
               for name, ys in (d.get("reference_lines") or {}).items()]
    return {
        "kind": "comparison",
        "title": _title(short_name(nodeid), f"comparison: {d.get('name') or d['quantity']}",
                        f"{d['quantity']} against {d['axis']}, means with {100 * (1 - d['alpha']):.6g}% intervals"),
        "xlabel": f"{d['axis']} (log scale)",
        "ylabel": f"{d['quantity']} (log scale)",
        "ticks": x,
        "tick_labels": labels,
        "series": series,
    }


def _key(figure: dict) -> str:
    return hashlib.sha256(json.dumps(figure, sort_keys=True).encode()).hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:120] or "audit"


def figures(entries: list[dict]) -> list[dict]:
    """Figure descriptions for the report's entries (``nodeid``, ``results``), in entry order.

    Each has ``file`` (``<test>-<k>.png``, ``k`` the result's index), ``nodeid``, ``result`` (the
    index) and the drawing fields; a description equal to an earlier one is dropped, and its
    ``duplicate_of`` recorded on the earlier one's ``same_as`` list.
    """
    out, seen = [], {}
    for e in entries:
        for i, r in enumerate(e["results"]):
            r = restore(r)  # the results' non-finite numbers are null in the JSON
            if r.get("result_type") == "privacy":
                fig = privacy_figure(e["nodeid"], r)
            elif r.get("result_type") == "rate":
                fig = rate_figures(e["nodeid"], r)
            elif r.get("result_type") == "comparison":
                fig = comparison_figure(e["nodeid"], r)
            else:
                fig = None
            if fig is None:
                continue
            key = _key(fig)
            name = f"{_slug(short_name(e['nodeid']))}-{i}.png"
            if key in seen:
                seen[key].setdefault("same_as", []).append(f"{e['nodeid']} result {i}")
                continue
            fig.update(file=name, nodeid=e["nodeid"], result=i)
            seen[key] = fig
            out.append(fig)
    return out


def _log_log(ax, ticks, labels, xlabel) -> None:  # pragma: no cover - needs matplotlib
    """Log-log axes with exactly the grid's values as x ticks."""
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(ticks, labels)
    ax.set_xlabel(xlabel)


def draw(figure: dict, path) -> None:  # pragma: no cover - needs matplotlib (the `report` extra)
    """Render ``figure`` (from :func:`figures`) to the PNG file ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if figure["kind"] == "privacy":
        fig, ax = plt.subplots(figsize=(6, 6.4))
        boundary, points, corners = figure["series"]
        ax.plot(boundary["x"], boundary["y"], "k-", lw=1.2, zorder=3, label="claimed boundary B")
        if boundary["forbidden"] == "above":
            ax.fill_between(boundary["x"], boundary["y"], 1.0, color="0.85", zorder=1,
                            label="forbidden by the claim")
        else:
            ax.fill_betweenx(boundary["y"], boundary["x"], 1.0, color="0.85", zorder=1,
                             label="forbidden by the claim")
        ax.plot(points["x"], points["y"], ".", ms=3, color="tab:blue", zorder=4, label=points["label"])
        ax.plot(corners["x"], corners["y"], ".", ms=3, color="tab:red", zorder=5, label=corners["label"])
        ax.set_xlim(*figure["limits"])
        ax.set_ylim(*figure["limits"])
        ax.set_aspect("equal")
        ax.set_xlabel(figure["xlabel"])
        ax.set_ylabel(figure["ylabel"])
        ax.legend(loc="lower right", fontsize=7)
    elif figure["kind"] == "comparison":
        fig, ax = plt.subplots(figsize=(6, 4.4))
        for s in figure["series"]:
            if s["style"] == "errorbar":
                yerr = [[m - lo for m, lo in zip(s["y"], s["low"])], [hi - m for m, hi in zip(s["y"], s["high"])]]
                ax.errorbar(s["x"], s["y"], yerr=yerr, marker="o", ms=4, capsize=3, label=s["label"])
            else:
                ax.plot(s["x"], s["y"], "--", label=s["label"])
        _log_log(ax, figure["ticks"], figure["tick_labels"], figure["xlabel"])
        ax.set_ylabel(figure["ylabel"])
        ax.legend(fontsize=7, loc="best")
    else:
        panels = figure["panels"]
        fig, axs = plt.subplots(1, len(panels), figsize=(max(6.0, 4.2 * len(panels)), 4.4), squeeze=False)
        for ax, panel in zip(axs[0], panels):
            measured, fit, exponent = panel["series"]
            yerr = [[m - lo for m, lo in zip(measured["y"], measured["low"])],
                    [hi - m for m, hi in zip(measured["y"], measured["high"])]]
            ax.errorbar(measured["x"], measured["y"], yerr=yerr, fmt="o", ms=4, capsize=3, label=measured["label"])
            ax.plot(fit["x"], fit["y"], "-", label=fit["label"])
            ax.plot(exponent["x"], exponent["y"], "--", label=exponent["label"])
            _log_log(ax, panel["ticks"], [f"{v:g}" for v in panel["ticks"]], panel["xlabel"])
            ax.legend(fontsize=7, loc="best")
        axs[0][0].set_ylabel(figure["ylabel"])
    fig.suptitle(figure["title"], fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)
