"""``evalsig demo``: simulate two fine-tunes, write their results, and compare them honestly."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from evalsig.cli.application import command, data_errors
from evalsig.cli.compare import render
from evalsig.cli.options import Destination
from evalsig.cli.output import result_console

if TYPE_CHECKING:
    import numpy as np

__all__ = ["demo_command"]

N_ITEMS, N_RUNS, N_SUBJECTS = 4000, 8, 40


def _write_long_csv(path: Path, scores: np.ndarray) -> None:
    """Write runs x items 0/1 scores as a long table: item, run, subject, correct."""
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["item", "run", "subject", "correct"])
        for run, row in enumerate(scores, start=1):
            for item, value in enumerate(row):
                writer.writerow([f"q{item:04d}", run, f"subject-{item % N_SUBJECTS:02d}", value])


@command("demo", example="evalsig demo --dir demo")
def demo_command(
    directory: Annotated[
        Path, typer.Option("--dir", help="Where to write the simulated result files.")
    ] = Path("evalsig-demo"),
    seed: Annotated[int, typer.Option(min=0, help="Seed of the simulation.")] = 2026,
) -> None:
    """Simulate a failed and a successful fine-tune of one base model, and test both."""
    import numpy as np

    from evalsig.comparison import compare
    from evalsig.data import load
    from evalsig.report.html import page
    from evalsig.simulate import simulate_benchmark, simulate_runs

    console = result_console()
    with data_errors():
        bench = simulate_benchmark(n_items=N_ITEMS, n_runs=N_RUNS, uplift=0.01, rng=seed)
        clone = simulate_runs(bench.p_baseline, N_RUNS, np.random.default_rng(seed + 1))
        directory.mkdir(parents=True, exist_ok=True)
        files = {}
        for name, scores in (
            ("base", bench.baseline),
            ("finetune-a", clone),
            ("finetune-b", bench.candidate),
        ):
            files[name] = directory / f"{name}.csv"
            _write_long_csv(files[name], scores)
        console.print(
            f"Simulated a base model and two fine-tunes on {N_ITEMS:,} questions, {N_RUNS} runs "
            "each: fine-tune A is no better than the base (true gain 0), fine-tune B gains "
            f"{100 * bench.true_difference:.2f} points.\nWrote the per-question results to "
            f"{', '.join(str(f) for f in files.values())}.\n",
            markup=False,
        )
        base = load(files["base"], run_column="run")
        results = []
        for label, name in (("A", "finetune-a"), ("B", "finetune-b")):
            console.print(f"Fine-tune {label} vs base", style="bold")
            result = compare(base, load(files[name], run_column="run"), one_sided=True)
            render(result, Destination())
            results.append(result.to_dict())
            console.print()
        report_path = directory / "report.html"
        report_path.write_text(page(results, title="evalsig demo: two fine-tunes"), "utf-8")
    console.print(
        "The same comparison from the command line:\n"
        f"  evalsig compare {files['base']} {files['finetune-b']} --run run --one-sided\n\n"
        f"HTML report: {report_path.resolve()}",
        markup=False,
    )
