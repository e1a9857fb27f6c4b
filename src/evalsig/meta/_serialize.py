"""The JSON form of a :class:`~evalsig.meta.SynthesisResult` (kind "meta-analysis")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from evalsig._json import json_safe
from evalsig.meta.model import MetaResult
from evalsig.meta.reports import SETTINGS

if TYPE_CHECKING:
    from evalsig.meta.synthesis import (
        BenchmarkBoard,
        BootstrapWidths,
        CellResult,
        SelfReportGap,
        SynthesisResult,
    )

__all__ = ["meta_dict", "synthesis_dict"]


def meta_dict(meta: MetaResult) -> dict[str, Any]:
    """``MetaResult.to_dict()`` without the envelope (kind, schema version)."""
    d = meta.to_dict()
    del d["kind"], d["schema_version"]
    return d


def _bootstrap(b: BootstrapWidths | None) -> dict[str, Any] | None:
    if b is None:
        return None
    nulls: dict[str, str] = {}
    reason = "every bootstrap replicate failed to converge"
    return {
        "synthesized_half_width": json_safe(b.synthesized, "synthesized", nulls, reason),
        "single_report_half_width": b.single_report,
        "n_resamples": b.n_resamples,
        "n_failed": b.n_failed,
        "confidence_level": b.confidence_level,
        "nulls": nulls,
    }


def _cell(c: CellResult, result: SynthesisResult) -> dict[str, Any]:
    table = result.table
    m = meta_dict(c.meta)
    reports = m.pop("reports")
    for rep, i in zip(reports, c.rows, strict=True):
        rep["source"] = rep.pop("label")
        rep["score"] = rep.pop("estimate")
        rep["row"] = i + 1
        rep["imputed"] = bool(table.imputed[i])
        n = float(table.n_items[i])
        rep["n_items"] = None if math.isnan(n) else int(n)
        rep["self_reported"] = table.self_reported[i]
        for s in SETTINGS:
            rep[s] = table.settings[s][i]
    notes = m.pop("notes") + list(c.notes)
    return {
        "model": c.model,
        "benchmark": c.benchmark,
        **m,
        "max_reported": c.max_reported,
        "bootstrap": _bootstrap(c.bootstrap),
        "egger": None if c.egger is None else c.egger.to_dict(),
        "rank_test": None if c.rank_test is None else c.rank_test.to_dict(),
        "trim_and_fill": None if c.trim_and_fill is None else c.trim_and_fill.to_dict(),
        "self_report_gap": None if c.self_report_gap is None else c.self_report_gap.to_dict(),
        "reports": reports,
        "notes": notes,
    }


def _board(b: BenchmarkBoard) -> dict[str, Any]:
    nulls: dict[str, str] = {}
    reason = "the cell's model did not converge"
    rows = [
        {
            "model": r.model,
            "mu": json_safe(r.mu, f"rows[{j}].mu", nulls, reason),
            "ci_low": json_safe(r.ci_low, f"rows[{j}].ci_low", nulls, reason),
            "ci_high": json_safe(r.ci_high, f"rows[{j}].ci_high", nulls, reason),
            "k": r.k,
            "max_reported": r.max_reported,
            "rank": r.rank,
            "rank_max": r.rank_max,
        }
        for j, r in enumerate(b.rows)
    ]
    swaps = [
        {
            "higher_by_max": a,
            "higher_by_synthesis": other,
            "max_gap": max_gap,
            "mu_gap": json_safe(mu_gap, f"swaps[{j}].mu_gap", nulls, reason),
        }
        for j, (a, other, max_gap, mu_gap) in enumerate(b.swaps)
    ]
    return {
        "benchmark": b.benchmark,
        "top": b.top,
        "top_reordered": b.top_reordered,
        "n_moved": b.n_moved,
        "rows": rows,
        "swaps": swaps,
        "funnel": None if b.funnel is None else b.funnel.to_dict(),
        "notes": list(b.notes),
        "nulls": nulls,
    }


def _gap(g: SelfReportGap | None) -> dict[str, Any] | None:
    if g is None:
        return None
    return {
        "pooled": None if g.pooled is None else meta_dict(g.pooled),
        "by_benchmark": [{"benchmark": b, **meta_dict(m)} for b, m in g.by_benchmark],
        "n_cells": g.n_cells,
        "n_cells_skipped": g.n_cells_skipped,
        "n_unknown": g.n_unknown,
    }


def synthesis_dict(result: SynthesisResult, schema_version: int) -> dict[str, Any]:
    """The strict-JSON layout; every null has its reason in a ``nulls`` beside it."""
    nulls: dict[str, str] = {}
    summary = result.overview()
    reasons = {
        "median_i2": "no cell has 2 or more reports",
        "median_half_width": "no cell has 3 or more reports, or the bootstrap was off",
        "median_single_half_width": "no cell has 3 or more reports, or the bootstrap was off",
    }
    for key, reason in reasons.items():
        if summary[key] is None:
            nulls[f"summary.{key}"] = reason
    if result.seed is None:
        nulls["seed"] = (
            "unknown: rng was a numpy Generator" if result.n_resamples else "no bootstrap"
        )
    if result.self_report is None:
        nulls["self_report"] = "the table has no self_reported flags"
    elif result.self_report.pooled is None:
        nulls["self_report.pooled"] = (
            "no cell has both self-reported and third-party reports with k >= 3"
        )
    table = result.table
    return {
        "kind": "meta-analysis",
        "schema_version": schema_version,
        "method": result.method,
        "test": result.test,
        "confidence_level": result.confidence_level,
        "scale": table.scale,
        "source": table.origin,
        "n_reports": table.n_reports,
        "n_cells": len(result.cells),
        "n_imputed": table.n_imputed,
        "n_resamples": result.n_resamples,
        "seed": result.seed,
        "summary": summary,
        "cells": [_cell(c, result) for c in result.cells],
        "leaderboards": [_board(b) for b in result.leaderboards],
        "self_report": _gap(result.self_report),
        "notes": list(result.notes),
        "nulls": nulls,
    }
