"""``evalsig audit``, ``evalsig audit-claim`` and ``evalsig simulate``.

``audit`` measures every interval method on the same simulated benchmarks (power,
false positives, width); ``audit-claim`` checks a reported interval or p-value against the
honest analysis of the data behind it; ``simulate`` describes one simulated benchmark and
the power of its design, and can write its runs as files. Every results file they read
(``audit-claim``'s two, ``--fit``) may be ``-``, standard input.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from evalsig.cli.application import command, data_errors, note
from evalsig.cli.options import (
    Destination,
    ReadFiles,
    Scheduler,
    Workers,
    field_options,
    grouped_options,
    reads_files,
    writes_output,
)
from evalsig.cli.stdin import as_given, stdin_paths
from evalsig.errors import DataError

if TYPE_CHECKING:
    import numpy as np

    from evalsig.simulate.models import Design

__all__ = ["audit_claim_command", "audit_command", "simulate_command"]

Seed = Annotated[int | None, typer.Option(min=0, help="Random seed (recorded in the result).")]


@dataclass(frozen=True, slots=True, kw_only=True)
class DesignOptions:
    """The options of a simulated benchmark's design (``audit``, ``simulate``): the item
    mixture (None: its default), or ``--fit`` to estimate it from results."""

    n_items: int | None = None
    runs: int | None = None
    share_easy: float | None = None
    share_hard: float | None = None
    middle: tuple[float, float] | None = None
    uplift: float = 0.01
    clusters: int | None = None
    icc: float | None = None
    fit: str | None = None


_DESIGN_TYPES: dict[str, Any] = {
    "n_items": Annotated[int | None, typer.Option("--n-items", min=2, help="Items per benchmark.")],
    "runs": Annotated[int | None, typer.Option("--runs", min=1, help="Runs per model.")],
    "share_easy": Annotated[
        float | None, typer.Option(help="Share of always-right items (default 0.42).")
    ],
    "share_hard": Annotated[
        float | None, typer.Option(help="Share of always-wrong items (default 0.28).")
    ],
    "middle": Annotated[
        tuple[float, float] | None,
        typer.Option(help="Other items: p uniform on LOW HIGH (default 0.2 0.8)."),
    ],
    "uplift": Annotated[
        float,
        typer.Option(help="True gain of the fine-tune: share of items promoted (0.01 = +1 pp)."),
    ],
    "clusters": Annotated[
        int | None,
        typer.Option("--clusters", min=2, help="Group the items in this many clusters."),
    ],
    "icc": Annotated[
        float | None, typer.Option(help="Intra-cluster correlation of single-run scores.")
    ],
    "fit": Annotated[
        str | None,
        typer.Option(
            help="Fit the generator to these results of one model (runs x items; -: stdin)."
        ),
    ],
}
"""Each design option's ``Annotated`` type (its flags and help); the names, their
``--help`` order and defaults are :class:`DesignOptions`'s fields."""


def designs_benchmark(func: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command the options of :class:`DesignOptions` in place of its
    ``design_options: DesignOptions`` parameter (as :func:`reads_files` gives the reader
    options)."""
    options = field_options(DesignOptions, _DESIGN_TYPES)
    return grouped_options(
        func, "design_options", options, group=DesignOptions, who="designs_benchmark"
    )


def _design(given: DesignOptions, read: ReadFiles) -> Design:
    """The design ``given`` describes: the item mixture, or the one fitted to ``--fit``."""
    from evalsig.data import load
    from evalsig.simulate import MixtureDesign, fit_design

    if given.fit is None:
        defaults = MixtureDesign()
        return MixtureDesign(
            n_items=defaults.n_items if given.n_items is None else given.n_items,
            n_runs=defaults.n_runs if given.runs is None else given.runs,
            share_easy=defaults.share_easy if given.share_easy is None else given.share_easy,
            share_hard=defaults.share_hard if given.share_hard is None else given.share_hard,
            middle=defaults.middle if given.middle is None else given.middle,
            uplift=given.uplift,
            n_clusters=given.clusters,
            icc=0.0 if given.icc is None else given.icc,
        )
    mixture = {
        "--share-easy": given.share_easy,
        "--share-hard": given.share_hard,
        "--middle": given.middle,
        "--clusters": given.clusters,
        "--icc": given.icc,
    }
    clash = [name for name, value in mixture.items() if value is not None]
    if clash:
        raise DataError(
            f"--fit estimates the item mixture from the data; drop {', '.join(clash)} "
            "(or drop --fit)."
        )
    with stdin_paths([given.fit], read.input_format) as (path,):
        runs_read = load(path, **read.keywords())
        return fit_design(runs_read, n_items=given.n_items, n_runs=given.runs, uplift=given.uplift)


def _list_methods() -> str:
    from evalsig.audit import available_methods

    lines = []
    for m in available_methods().values():
        lines.append(f"{m.name} ({m.category}): {m.label}")
        if m.definition:
            lines.append(f"    {m.definition}")
    return "\n".join(lines)


@command("audit", example="evalsig audit --simulations 200 --seed 1")
@reads_files("id_column", "score_column", "run_column", "task", "metric", "input_format")
@designs_benchmark
@writes_output
def audit_command(
    simulations: Annotated[
        int, typer.Option("--simulations", min=1, help="Simulated benchmarks.")
    ] = 500,
    method: Annotated[
        list[str] | None,
        typer.Option("--method", help="Method to audit (repeatable; default: all built-in)."),
    ] = None,
    resamples: Annotated[
        int, typer.Option("--resamples", min=2, help="B, resamples of every bootstrap.")
    ] = 30,
    independent_runs: Annotated[
        int, typer.Option(min=2, help="J, fresh runs per model of the independent-runs method.")
    ] = 30,
    confidence_level: Annotated[
        float, typer.Option(min=0.5, max=0.9999, help="Level of every interval.")
    ] = 0.95,
    *,
    design_options: DesignOptions,
    read: ReadFiles,
    seed: Seed = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
    list_methods: Annotated[
        bool, typer.Option("--list-methods", help="List the methods and their definitions.")
    ] = False,
    destination: Destination,
) -> None:
    """Power, false-positive rate and CI width of every interval method, honest and not,
    on the same simulated benchmarks (default: the article's design and table)."""
    from evalsig.audit import audit, get_method
    from evalsig.distributed import executor_for

    if list_methods:
        typer.echo(_list_methods())
        return
    with data_errors():
        design = _design(design_options, read)
        chosen = None if not method else [get_method(name) for name in method]
        with executor_for(scheduler, workers) as executor:
            result = audit(
                design,
                methods=chosen,
                n_simulations=simulations,
                n_resamples=resamples,
                independent_runs=independent_runs,
                confidence_level=confidence_level,
                rng=seed,
                executor=executor,
            )
    destination.emit(result.to_dict(), title="Method audit")


@command(
    "audit-claim", example="evalsig audit-claim base.csv cand.csv --ci 0.01 0.05 --resamples 1000"
)
@reads_files(
    "id_column", "score_column", "run_column", "cluster_column", "task", "metric", "input_format"
)
@writes_output
def audit_claim_command(
    baseline: Annotated[str, typer.Argument(help="Baseline results (runs x items; -: stdin).")],
    candidate: Annotated[str, typer.Argument(help="Candidate results on the same items.")],
    ci: Annotated[
        tuple[float, float] | None,
        typer.Option("--ci", help="The reported interval LOW HIGH for candidate - baseline."),
    ] = None,
    half_width: Annotated[
        float | None, typer.Option("--half-width", help="The reported +/- half-width.")
    ] = None,
    pvalue: Annotated[
        float | None, typer.Option("--pvalue", help="The reported two-sided p-value.")
    ] = None,
    estimate: Annotated[
        float | None, typer.Option(help="The reported difference (default: from --ci or data).")
    ] = None,
    resamples: Annotated[
        int | None,
        typer.Option("--resamples", min=2, help="Bootstrap resamples B the report used."),
    ] = None,
    points: Annotated[
        bool,
        typer.Option("--points", help="Reported numbers are percentage points (0.19 = 0.19 pp)."),
    ] = False,
    confidence_level: Annotated[
        float, typer.Option(min=0.5, max=0.9999, help="Level of the reported interval.")
    ] = 0.95,
    tolerance: Annotated[
        float, typer.Option(min=0.01, max=0.99, help="Relative tolerance of a width match.")
    ] = 0.2,
    *,
    read: ReadFiles,
    destination: Destination,
) -> None:
    """Check a reported interval (--ci or --half-width) or --pvalue against the honest
    paired analysis of the same results, and name the shortcut that explains it."""
    from evalsig.audit.claim import audit_claim
    from evalsig.data import load

    with data_errors(), stdin_paths([baseline, candidate], read.input_format) as paths:
        tables = [
            load(path, name=name, **read.keywords())
            for name, path in zip((baseline, candidate), paths, strict=True)
        ]
        result = audit_claim(
            tables[0],
            tables[1],
            ci=ci,
            half_width=half_width,
            pvalue=pvalue,
            estimate=estimate,
            n_resamples=resamples,
            confidence_level=confidence_level,
            units="points" if points else "score",
            tolerance=tolerance,
        )
        document = as_given(result.to_dict())
    flagged = result.verdict in ("too narrow", "estimate differs")
    destination.emit(
        document,
        style="bold red" if flagged else "bold green",
        title="Claim audit",
    )


@command("simulate", example="evalsig simulate --n-items 500 --uplift 0.02 --seed 1")
@reads_files("id_column", "score_column", "run_column", "task", "metric", "input_format")
@designs_benchmark
@writes_output
def simulate_command(
    design_options: DesignOptions,
    *,
    read: ReadFiles,
    simulations: Annotated[
        int, typer.Option("--simulations", min=0, help="Benchmarks for the empirical power.")
    ] = 1000,
    alpha: Annotated[float, typer.Option(min=1e-6, max=0.5, help="Level of the tests.")] = 0.05,
    seed: Seed = None,
    save: Annotated[
        Path | None,
        typer.Option(help="Write baseline.csv, clone.csv and finetune.csv (long format) here."),
    ] = None,
    destination: Destination,
) -> None:
    """Simulate one benchmark (baseline, clone, fine-tune): accuracies, run-to-run SD,
    consistency, discordance, and the power of McNemar and the paired t for the design."""
    from evalsig.simulate import simulation_report

    with data_errors():
        design = _design(design_options, read)
        result = simulation_report(design, rng=seed, n_simulations=simulations, alpha=alpha)
        if save is not None and result.simulation is not None:
            save.mkdir(parents=True, exist_ok=True)
            sim = result.simulation
            for name, scores in (
                ("baseline", sim.baseline),
                ("clone", sim.clone),
                ("finetune", sim.finetune),
            ):
                _write_long(save / f"{name}.csv", scores, sim.clusters)
            note(f"wrote baseline.csv, clone.csv and finetune.csv to {save}")
    destination.emit(result.to_dict(), title="Simulated benchmark")


def _write_long(path: Path, scores: np.ndarray, clusters: np.ndarray | None) -> None:
    """Runs x items 0/1 scores as a long CSV: item, run, correct (and cluster)."""
    import numpy as np

    n_runs, n_items = scores.shape
    width = len(str(n_items - 1))
    items = np.array([f"q{i:0{width}d}" for i in range(n_items)])
    lines = ["item,run,correct" + (",cluster" if clusters is not None else "")]
    for run in range(n_runs):
        row = scores[run].astype(str)
        if clusters is None:
            lines.extend(np.char.add(np.char.add(items, f",{run + 1},"), row).tolist())
        else:
            cells = np.char.add(np.char.add(items, f",{run + 1},"), row)
            tags = np.char.add(",c", clusters.astype(str))
            lines.extend(np.char.add(cells, tags).tolist())
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
