"""HELM run directories: the per-instance statistics written by ``helm-run``.

A run directory (``benchmark_output/runs/<suite>/<run spec name>/``) holds ``run_spec.json``,
``scenario.json``, ``scenario_state.json``, ``stats.json`` and ``per_instance_stats.json``,
a JSON list of ``PerInstanceStats``::

    {"instance_id": "id147", "train_trial_index": 0,
     "perturbation": {"name": "mild_mix", "robustness": true, ...},   (perturbed only)
     "stats": [{"name": {"name": "exact_match", "split": "test"},
                "count": 1, "sum": 1.0, "mean": 1.0, ...}, ...]}

Read from a run directory, its ``per_instance_stats.json`` (also gzipped), or a suite
directory of runs (one task each). Each stat is an observation of item ``instance_id``
(a perturbed copy, which HELM gives its original's id, is the item
``"<instance_id>/<perturbation name>"``, clustered with its original by
``cluster="instance_id"``), run ``train_trial_index``, metric the stat name
(``exact_match``, ``f1_score``, ``rouge_l`` ...) and value its ``mean`` (or ``sum /
count``; count 0 means no value, as HELM writes ``training_co2_cost`` for most models:
malformed for the chosen metric, otherwise noted). The task is the run spec name
(``run_spec.json``, else the directory name) without the model-specific ``model=`` and
``model_deployment=`` entries, so that two models' runs of a scenario pair up. The content
key ``correct_references`` is the text of the references tagged ``correct`` in
``scenario_state.json`` (joined by ``" | "``); its request ``success`` flags only mean
the model API answered and are never scores. Stats carrying a ``sub_split`` offer it as
a cluster label; scenario arguments (MMLU's subject) are constant within a run.

Splits. An instance belongs to one split, and ``helm-run`` samples evaluation instances
from the validation and test splits together (``downsample_eval_instances`` and
``EVAL_SPLITS`` in ``runner.py``; the ``eval_split`` run expander restricts a run to one),
so a run may mix, say, 9 test and 1 validation instance, as the MMLU and NarrativeQA
example runs do. HELM aggregates each split separately and its leaderboards show a
scenario's main split (usually test; validation for HellaSwag). The split thus partitions
the items rather than giving an item two values as metrics do: all instances are kept,
with a note giving the split sizes, and ``split=`` keeps one (to reproduce HELM's
numbers). One instance with a stat under several splits cannot come from one HELM
evaluation: an error listing the splits, unless ``split=`` chooses.

References
----------
.. [1] P. Liang et al., "Holistic Evaluation of Language Models", Transactions on Machine
   Learning Research, 2023. https://arxiv.org/abs/2211.09110
.. [2] HELM, https://github.com/stanford-crfm/helm: ``docs/tutorial.md`` (the run files),
   ``src/helm/benchmark/metrics/metric.py`` (``PerInstanceStats``), ``metric_name.py``,
   ``statistic.py``, ``runner.py`` and ``run_expander.py``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from evalsig.data.readers.base import ReadOptions, read_bytes
from evalsig.data.readers.collect import Collector
from evalsig.data.readers.tabular import loads
from evalsig.errors import DataError, FormatError, examples

__all__ = ["HELM", "RunSpec", "run_spec", "task_name"]

STATS_FILE = "per_instance_stats.json"
MODEL_ENTRIES = ("model", "model_deployment")
KEY_FIELD = "correct_references"
INSTANCE_FIELD = "instance_id"
SUB_SPLIT_FIELD = "sub_split"


_TOKENS = "a count of tokens or bytes"
_COST = "a runtime or cost of the request or the model"
_SETTING = "a setting of the request"
_CONFIDENCE = "the model's probability of its own output"
BOOKKEEPING = {
    **dict.fromkeys(
        ("num_prompt_tokens", "num_completion_tokens", "num_output_tokens",
         "num_perplexity_tokens", "num_bytes"),
        _TOKENS,
    ),
    **dict.fromkeys(
        ("inference_runtime", "inference_denoised_runtime", "inference_idealized_runtime",
         "training_co2_cost", "training_energy_cost"),
        _COST,
    ),
    **dict.fromkeys(
        ("batch_size", "num_references", "num_train_trials", "num_train_instances",
         "prompt_truncated", "num_instances", "predicted_index"),
        _SETTING,
    ),
    **dict.fromkeys(("logprob", "max_prob"), _CONFIDENCE),
}  # fmt: skip
"""HELM's per-instance statistics that describe the request rather than score the answer:
token counts, runtimes and costs, request settings, finish reasons (``finish_reason_*``)
and the model's confidence; in HELM's metric metadata they have ``lower_is_better=None``
or are efficiency or calibration inputs (``basic_metrics.py``, ``efficiency_metrics.py``).
``evalsig inspect`` describes them by their mean, without a score's interval."""


def task_name(run_name: str) -> str:
    """A HELM run spec name without its model entries: the scenario and its settings.

    Parameters
    ----------
    run_name : str
        ``<scenario>:<key>=<value>,...`` as ``helm-run`` names runs; a directory name whose
        ``:`` was written as ``-`` is understood too.

    Returns
    -------
    str
        The name without ``model=`` and ``model_deployment=`` entries, the rest verbatim.

    Examples
    --------
    >>> task_name("mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2")
    'mmlu:subject=philosophy,method=multiple_choice_joint'
    >>> task_name("narrative_qa:model=openai_gpt2,model_deployment=huggingface_gpt2")
    'narrative_qa'
    >>> task_name("narrative_qa-model=openai_gpt2")
    'narrative_qa'
    """
    scenario, sep, args = run_name.partition(":")
    if not sep:
        match = re.fullmatch(r"([^=,]*?)-([A-Za-z_]\w*=.*)", run_name, flags=re.DOTALL)
        if match is None:
            return run_name
        scenario, sep, args = match[1], "-", match[2]
    kept = [entry for entry in args.split(",") if entry.partition("=")[0] not in MODEL_ENTRIES]
    return scenario + sep + ",".join(kept) if kept else scenario


def _find(directory: Path, name: str) -> Path | None:
    """``directory/name``, or its gzipped version, if either exists."""
    return next((p for p in (directory / name, directory / f"{name}.gz") if p.is_file()), None)


def _runs(path: Path) -> list[Path]:
    """The per-instance stats files under ``path``: its own, or its runs' (a suite)."""
    if not path.is_dir():
        return [path]
    runs = [path] if _find(path, STATS_FILE) else sorted(c for c in path.iterdir() if c.is_dir())
    return [f for f in (_find(run, STATS_FILE) for run in runs) if f is not None]


def _read_json(path: Path, options: ReadOptions) -> Any:
    data = read_bytes(path, max_decompressed_bytes=options.max_decompressed_bytes)
    try:
        return loads(data)
    except json.JSONDecodeError as exc:
        raise FormatError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            "was the run interrupted while writing it?"
        ) from None
    except UnicodeDecodeError:
        raise FormatError(f"{path}: not valid UTF-8 text.") from None


@dataclass(frozen=True, slots=True)
class RunSpec:
    """What ``run_spec.json`` says of a run: its name, model and HELM version."""

    name: str
    model: str | None
    version: str


NO_SPEC_VERSION = "(no run_spec.json: version unknown)"
DEPLOYMENT_VERSION = "v0.4.0 or later (adapter_spec names a model_deployment)"
MODEL_ONLY_VERSION = "v0.1 - v0.3 (adapter_spec names a model only)"


def run_spec(stats: Path, options: ReadOptions) -> RunSpec:
    """The run spec of the run holding ``stats``; HELM v0.4.0 added ``model_deployment``
    to ``adapter_spec`` beside ``model``."""
    spec_path = _find(stats.parent, "run_spec.json")
    if spec_path is None:
        return RunSpec(stats.parent.name, None, NO_SPEC_VERSION)
    spec = _read_json(spec_path, options)
    name = spec.get("name") if isinstance(spec, Mapping) else None
    if not isinstance(name, str) or not name:
        raise FormatError(f"{spec_path}: no run spec 'name' (a string); is it a HELM RunSpec?")
    adapter = spec.get("adapter_spec")
    adapter = adapter if isinstance(adapter, Mapping) else {}
    model = adapter.get("model")
    version = DEPLOYMENT_VERSION if "model_deployment" in adapter else MODEL_ONLY_VERSION
    return RunSpec(name, model if isinstance(model, str) and model else None, version)


def _one_model(path: Path, specs: list[tuple[Path, RunSpec]], options: ReadOptions) -> list[Any]:
    """The runs of one model: ``where={"model": ...}`` chooses; several is an error."""
    wanted = dict(options.where)
    unknown = sorted(set(wanted) - {"model"})
    if unknown:
        raise DataError(
            f"{path}: HELM runs can be chosen by 'model' only (the adapter_spec model, "
            f"e.g. --where model=openai/gpt2); got {', '.join(map(repr, unknown))}."
        )
    models = sorted({spec.model for _, spec in specs if spec.model is not None})
    if "model" in wanted:
        if wanted["model"] not in models:
            raise DataError(
                f"{path}: no run of model {wanted['model']!r}; models: "
                f"{', '.join(map(repr, models)) or 'none named (no run_spec.json)'}."
            )
        return [(stats, spec) for stats, spec in specs if spec.model == wanted["model"]]
    if len(models) > 1 and not options.models_by_task:
        raise DataError(
            f"{path}: holds runs of {len(models)} models ({examples(models)}); evalsig reads "
            "one model at a time: choose one with --where model=NAME / where={'model': NAME}."
        )
    return specs


def _prefix(root: Path, file: Path) -> str:
    """How positions name ``file`` when the user gave ``root``: '' for ``root`` itself."""
    if root.is_dir():
        return f"{file.relative_to(root)}: "
    return "" if file == root else f"{file}: "


def _correct_references(
    stats: Path, root: Path, out: Collector
) -> dict[tuple[object, str | None, object], str | None]:
    """``(instance id, perturbation name, trial) -> correct reference text(s)``."""
    path = _find(stats.parent, "scenario_state.json")
    if path is None:
        return {}
    state = _read_json(path, out.options)
    states = state.get("request_states") if isinstance(state, Mapping) else None
    if not isinstance(states, list):
        raise FormatError(f"{path}: no 'request_states' list; is it a HELM ScenarioState?")
    keys: dict[tuple[object, str | None, object], str | None] = {}
    for number, request_state in enumerate(states, start=1):
        try:
            instance = request_state["instance"]
            perturbation = instance.get("perturbation") or {}
            texts = [
                reference["output"]["text"]
                for reference in instance["references"]
                if "correct" in reference.get("tags", ())
            ]
            item = (instance["id"], perturbation.get("name"), request_state["train_trial_index"])
        except (KeyError, TypeError, AttributeError):
            out.bad(
                f"{_prefix(root, path)}request state {number}",
                "lacks instance.id, instance.references[].output.text or train_trial_index.",
            )
            continue
        keys[item] = " | ".join(map(str, texts)) if texts else None
    return keys


@dataclass(slots=True)
class _Run:
    """What one run file held, for the checks and notes after reading it."""

    label: str
    task: str
    metrics: set[str] = field(default_factory=set)
    splits: dict[object, set[object]] = field(default_factory=dict)  # instances of each
    by_stat: dict[tuple[object, object, str], object] = field(default_factory=dict)
    """The split of each (item, trial, metric), when no split was chosen."""
    empty: Counter[str] = field(default_factory=Counter)
    perturbations: dict[str, bytes] = field(default_factory=dict)


def _value(stat: Mapping[str, Any]) -> tuple[object, str | None]:
    """The stat's mean, or why there is none ('empty': count 0; else a reason)."""
    mean, count, total = stat.get("mean"), stat.get("count"), stat.get("sum")
    if mean is not None:
        return mean, None
    if count == 0:
        return None, "empty"
    if isinstance(count, (int, float)) and isinstance(total, (int, float)) and count > 0:
        return total / count, None
    return None, "has no 'mean' or 'sum'/'count'."


def _perturbed(instance: object, perturbation: object, run: _Run) -> tuple[object, str | None]:
    """The item id of a (perturbed) instance and the perturbation name ('' if unnamed)."""
    if perturbation is None:
        return instance, None
    name = perturbation.get("name") if isinstance(perturbation, dict) else None
    if not isinstance(name, str) or not name:
        return instance, ""
    try:
        described = orjson.dumps(perturbation, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError as exc:  # nested past 255 levels, or a huge integer
        raise FormatError(
            f"{run.label}: perturbation {name!r} cannot be compared with others ({exc}); "
            "is the file damaged?"
        ) from None
    if run.perturbations.setdefault(name, described) != described:
        raise FormatError(
            f"{run.label}: two perturbations are named {name!r} "
            f"({run.perturbations[name].decode()} and {described.decode()}); evalsig tells "
            "perturbed items apart by perturbation name."
        )
    return f"{instance}/{name}", name


def _read_entry(
    entry: object, where: str, run: _Run, keys: Mapping[Any, str | None], out: Collector
) -> None:
    options = out.options
    if not isinstance(entry, dict):
        out.bad(where, f"is a JSON {type(entry).__name__}, not a PerInstanceStats object.")
        return
    instance, trial, stats = (entry.get(k) for k in ("instance_id", "train_trial_index", "stats"))
    if not isinstance(instance, (str, int)) or not isinstance(trial, int):
        out.bad(where, "needs an 'instance_id' and an integer 'train_trial_index'.")
        return
    if not isinstance(stats, list):
        out.bad(where, "has no 'stats' list.")
        return
    entry_perturbation = entry.get("perturbation")
    entry_item = _perturbed(instance, entry_perturbation, run)
    for number, stat in enumerate(stats, start=1):
        name = stat.get("name") if isinstance(stat, dict) else None
        metric = name.get("name") if isinstance(name, dict) else None
        if not isinstance(metric, str) or not isinstance(name, dict):
            out.bad(f"{where}: stat {number}", "has no 'name': {'name': ...}.")
            continue
        run.metrics.add(metric)
        if metric in BOOKKEEPING or metric.startswith("finish_reason_"):
            out.descriptive[metric] = BOOKKEEPING.get(metric, "why HELM's generation stopped")
        split = name.get("split")
        if options.split is not None:
            run.splits.setdefault(split, set())
            if split != options.split:
                continue
        if options.metric is not None and metric != options.metric:
            continue
        perturbation = name.get("perturbation")
        item, pname = (
            entry_item
            if perturbation is None or perturbation == entry_perturbation
            else _perturbed(instance, perturbation, run)
        )
        value, problem = _value(stat)
        if pname == "":
            problem = "has a perturbation without a 'name'."
        if problem == "empty":
            if options.metric == metric:
                out.bad(f"{where}: stat {metric!r}", "has count 0: HELM recorded no value.")
            else:
                run.empty[metric] += 1
            continue
        if problem is not None:
            out.bad(f"{where}: stat {metric!r}", problem)
            continue
        run.splits.setdefault(split, set()).add(instance)
        if options.split is None and run.by_stat.setdefault((item, trial, metric), split) != split:
            raise DataError(
                f"{run.label}: instance {item!r} (trial {trial}) has stat {metric!r} under "
                f"several splits ({run.by_stat[item, trial, metric]!r}, {split!r}); HELM "
                f"evaluates an instance on one split, so these are merged results; choose one "
                f"with --split / split=."
            )
        sub_split = name.get("sub_split")
        if sub_split is not None:
            out.offer(clusters=[SUB_SPLIT_FIELD])
        out.add(
            run.task,
            item,
            value,
            position=f"{where}: stat {metric!r}",
            metric=metric,
            run=trial,
            cluster={SUB_SPLIT_FIELD: sub_split, INSTANCE_FIELD: instance}.get(
                options.cluster_column or ""
            ),
            key=keys.get((instance, pname, trial)),
        )


def _finish_run(run: _Run, out: Collector) -> None:
    """Split checks and notes for one run."""
    options = out.options
    if options.split is None:
        sizes = {s: len(i) for s, i in run.splits.items() if i}
        if len(sizes) > 1:
            shown = ", ".join(f"{s!r} ({n})" for s, n in sorted(sizes.items(), key=str))
            out.notes.append(
                f"{run.label}: instances of several splits are all items: {shown}; HELM "
                "reports each split separately (leaderboards: the scenario's main split, "
                f"usually 'test'); keep one with --split / split=."
            )
    if run.perturbations:
        out.offer(clusters=[INSTANCE_FIELD])
        out.notes.append(
            f"{run.label}: perturbed instances are items of their own (ids "
            f"'<instance_id>/<perturbation>': {examples(sorted(run.perturbations))}); "
            f"cluster them by instance with cluster='{INSTANCE_FIELD}'."
        )
    if run.empty and options.metric is None:
        shown = ", ".join(f"{m!r} ({n})" for m, n in sorted(run.empty.items()))
        out.notes.append(f"{run.label}: stats with count 0 (no value) left out: {shown}.")


class _HelmReader:
    name = "helm"
    accepts_where = True

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.is_dir():
            return bool(_runs(path))
        return path.name in (STATS_FILE, STATS_FILE + ".gz")

    def read(self, path: Path, options: ReadOptions, out: Collector) -> None:
        if options.key_column not in (None, KEY_FIELD):
            raise DataError(
                f"{path}: HELM runs have one content key, {KEY_FIELD!r} (used automatically); "
                f"got key_column={options.key_column!r}."
            )
        files = _runs(path)
        if not files:
            raise FormatError(
                f"{path}: no {STATS_FILE} in the directory or its subdirectories; pass a HELM "
                "run directory, a suite directory of runs, or the file itself."
            )
        out.names.update({"id": INSTANCE_FIELD, "run": "train_trial_index"})
        specs = _one_model(path, [(stats, run_spec(stats, options)) for stats in files], options)
        out.version("; ".join(sorted({spec.version for _, spec in specs})))
        out.model(" + ".join(sorted({spec.model for _, spec in specs if spec.model})) or None)
        named = [(stats, task_name(spec.name)) for stats, spec in specs]
        if options.task is not None:  # choose the task before checking metrics and splits
            out.tasks_seen.update(task for _, task in named)
            named = [(stats, task) for stats, task in named if task == options.task]
            if not named:
                return  # other paths may hold it; the collection says when none does
        tasks: dict[str, Path] = {}
        runs: list[_Run] = []
        for stats, task in named:
            if task in tasks:
                raise FormatError(
                    f"{path}: runs {tasks[task].parent.name!r} and {stats.parent.name!r} are "
                    f"both {task!r} (other models?); pass one model's runs, e.g. with a glob "
                    f"'{path}/*model=<name>*'."
                )
            tasks[task] = stats
            run, prefix = _Run(task if len(named) > 1 else str(stats), task), _prefix(path, stats)
            document = _read_json(stats, options)
            if not isinstance(document, list) or not document:
                got = "an empty list" if isinstance(document, list) else type(document).__name__
                raise FormatError(
                    f"{stats}: expected a JSON list of per-instance stats (HELM's "
                    f"PerInstanceStats); got {got}."
                )
            keys = _correct_references(stats, path, out)
            if any(k is not None for k in keys.values()):
                out.offer(keys=[KEY_FIELD])
            for number, entry in enumerate(document, start=1):
                _read_entry(entry, f"{prefix}entry {number}", run, keys, out)
            _finish_run(run, out)
            runs.append(run)
        out.notes += _check_choice("metric", options.metric, [r.metrics for r in runs], runs, path)
        out.notes += _check_choice(
            "split", options.split, [set(r.splits) for r in runs], runs, path
        )


def _check_choice(
    what: str, given: str | None, found: list[set[Any]], runs: list[_Run], path: Path
) -> list[str]:
    """An error when no run has the chosen metric or split; notes on the runs without it."""
    if given is not None and not any(given in f for f in found):
        choices = ", ".join(sorted(map(repr, set().union(*found)))) or "none"
        raise DataError(f"{path}: no {what} {given!r}; {what}s: {choices}.")
    missing = [r.label for r, f in zip(runs, found, strict=True) if given not in (None, *f)]
    return [f"{label}: no {what} {given!r}; it gives no items." for label in missing]


HELM = _HelmReader()
