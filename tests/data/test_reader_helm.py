"""HELM run directories: real example runs (../shared/data) and generated runs."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import evalsig
from evalsig.data import describe, load_tasks
from evalsig.data.readers import READERS, register
from evalsig.data.readers.helm import HELM, task_name
from evalsig.errors import AlignmentError, DataError, FormatError

HELM_RUNS = "harness_fixtures/every_eval_ever/tests/data/helm"
MMLU = "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
HELLASWAG = (
    "commonsense-dataset=hellaswag,method=multiple_choice_joint,model=eleutherai_pythia-1b-v0"
)
NARRATIVE = "narrative_qa-model=openai_gpt2"
MMLU_TASK = "mmlu:subject=philosophy,method=multiple_choice_joint"


@pytest.fixture(scope="module", autouse=True)
def _helm_registered() -> Iterator[None]:
    saved = dict(READERS)
    register(HELM, first=True)
    yield
    READERS.clear()
    READERS.update(saved)


@pytest.fixture(scope="module")
def runs(shared_data: Path) -> Path:
    return shared_data / HELM_RUNS


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _oracle(run: Path, metric: str, split: str | None = None) -> dict[str, float]:
    """Each instance's stat mean, read with the json module (the reference)."""
    values: dict[str, float] = {}
    for entry in _json(run / "per_instance_stats.json"):
        for stat in entry["stats"]:
            name = stat["name"]
            if name["name"] == metric and split in (None, name["split"]):
                values[entry["instance_id"]] = stat["sum"] / stat["count"]
    return values


def _aggregate(run: Path, metric: str, split: str) -> float:
    """HELM's own mean over a split's instances (stats.json)."""
    (stat,) = (
        s
        for s in _json(run / "stats.json")
        if s["name"] == {"name": metric, "split": split}  # no perturbation, no sub-split
    )
    return float(stat["mean"])


def _by_item(table: evalsig.ScoreTable) -> dict[str, float]:
    assert table.item_ids is not None
    return dict(zip(table.item_ids.tolist(), table.means.tolist(), strict=True))


# --- real example runs ---------------------------------------------------------------------


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("run", "metric"),
    [
        (MMLU, "exact_match"),
        (MMLU, "quasi_exact_match"),
        (HELLASWAG, "exact_match"),
        (HELLASWAG, "quasi_prefix_exact_match"),
        (NARRATIVE, "exact_match"),
        (NARRATIVE, "f1_score"),
        (NARRATIVE, "rouge_l"),
    ],
)
def test_real_run_values_match_the_stats(runs: Path, run: str, metric: str) -> None:
    table = evalsig.load(runs / run, format="helm", metric=metric)
    expected = _oracle(runs / run, metric)
    assert _by_item(table) == pytest.approx(expected, abs=1e-12)
    assert table.n_runs == 1  # train_trial_index 0 only
    assert len(expected) == (5 if run == NARRATIVE else 10)


@pytest.mark.shared_data
def test_real_runs_splits(runs: Path) -> None:
    mmlu = runs / MMLU
    pooled = evalsig.load(mmlu, metric="exact_match")
    assert pooled.n_items == 10
    assert any("'test' (9), 'valid' (1)" in n for n in pooled.notes)
    test = evalsig.load(mmlu, metric="exact_match", split="test")
    assert _by_item(test) == _oracle(mmlu, "exact_match", "test")
    assert test.n_items == 9
    assert test.mean == pytest.approx(_aggregate(mmlu, "exact_match", "test"))  # HELM's 1/9
    valid = evalsig.load(mmlu, metric="exact_match", split="valid")
    assert valid.item_ids is not None
    assert valid.item_ids.tolist() == ["id11"]
    narrative = evalsig.load(runs / NARRATIVE, metric="f1_score", split="test")
    assert narrative.mean == pytest.approx(_aggregate(runs / NARRATIVE, "f1_score", "test"))
    hellaswag = evalsig.load(runs / HELLASWAG, metric="exact_match", split="valid")
    assert hellaswag.mean == pytest.approx(_aggregate(runs / HELLASWAG, "exact_match", "valid"))
    assert not any("several splits" in n for n in hellaswag.notes)
    with pytest.raises(DataError, match=r"no split 'test'; splits: 'valid'\."):
        evalsig.load(runs / HELLASWAG, metric="exact_match", split="test")


@pytest.mark.shared_data
def test_real_runs_describe(runs: Path) -> None:
    d = describe(runs / MMLU)
    assert d.formats == ("helm",)
    (task,) = d.tasks
    assert task.name == MMLU_TASK
    assert (task.n_items, task.runs, task.binary) == (10, (1, 1), False)
    stats = [s for e in _json(runs / MMLU / "per_instance_stats.json") for s in e["stats"]]
    assert task.metrics == tuple(sorted({s["name"]["name"] for s in stats if s["count"] > 0}))
    assert task.n_observations == sum(s["count"] > 0 for s in stats) == 250
    assert {"exact_match", "quasi_exact_match", "prefix_exact_match"} <= set(task.metrics)
    assert d.key_fields == ("correct_references",)
    assert d.cluster_fields == ()
    assert any("count 0 (no value) left out: 'training_co2_cost' (10)" in n for n in d.notes)
    narrative = describe(runs / NARRATIVE).tasks[0]
    assert (narrative.name, narrative.n_items) == ("narrative_qa", 5)
    assert {"f1_score", "rouge_l", "bleu_4"} <= set(narrative.metrics)
    with pytest.raises(DataError, match=r"several metrics \('batch_size', 'exact_match'"):
        evalsig.load(runs / MMLU)


@pytest.mark.shared_data
def test_real_runs_keys_and_file_path(runs: Path) -> None:
    table = evalsig.load(runs / NARRATIVE / "per_instance_stats.json", metric="exact_match")
    assert table.item_ids is not None
    assert table.keys is not None
    keys = dict(zip(table.item_ids.tolist(), table.keys.tolist(), strict=True))
    assert keys["id1413"] == "The school Mascot | the schools mascot"  # two correct references
    mmlu = evalsig.load(runs / MMLU, metric="exact_match")
    assert mmlu.keys is not None
    assert mmlu.keys.tolist()[0] == "internalmeaning"  # id147, the first instance


def _copy_run(source: Path, suite: Path, model: str) -> Path:
    """A copy of a HELM run for another model, under HELM's own directory name."""
    run_spec = _json(source / "run_spec.json")
    name = run_spec["name"].rsplit("model=", 1)[0] + f"model={model}"
    target = suite / name
    shutil.copytree(source, target)
    for path in target.iterdir():
        path.chmod(0o644)  # the shared copies are read-only
    run_spec["name"] = name
    run_spec["adapter_spec"]["model"] = model.replace("_", "/", 1)
    (target / "run_spec.json").write_text(json.dumps(run_spec), encoding="utf-8")
    return target


def _set_stat(run: Path, instance: str, metric: str, value: float) -> None:
    path = run / "per_instance_stats.json"
    entries = _json(path)
    for entry in entries:
        for stat in entry["stats"]:
            if entry["instance_id"] == instance and stat["name"]["name"] == metric:
                stat.update(sum=value, sum_squared=value**2, min=value, max=value, mean=value)
    path.write_text(json.dumps(entries), encoding="utf-8")


@pytest.mark.shared_data
def test_compare_two_models_runs(runs: Path, tmp_path: Path) -> None:
    a = _copy_run(runs / MMLU, tmp_path, "openai_gpt2")
    b = _copy_run(runs / MMLU, tmp_path, "org_other-model")
    for instance in ("id65", "id344"):  # test-split items the baseline got wrong
        _set_stat(b, instance, "exact_match", 1.0)
    assert list(load_tasks(a, metric="exact_match")) == list(load_tasks(b, metric="exact_match"))
    baseline = evalsig.load(a, metric="exact_match", split="test")
    candidate = evalsig.load(b, metric="exact_match", split="test")
    r = evalsig.compare(baseline, candidate, method="mcnemar", variant="exact")
    assert r.method == "mcnemar-exact"
    assert (r.n_items, r.n01, r.n10) == (9, 2, 0)
    assert (r.baseline_mean, r.candidate_mean) == pytest.approx((1 / 9, 3 / 9))
    assert r.estimate == pytest.approx(2 / 9)
    assert r.pvalue == pytest.approx(0.5)  # R: binom.test(2, 2)$p.value == 0.5

    state = _json(b / "scenario_state.json")
    state["request_states"][0]["instance"]["references"][2]["output"]["text"] = "revised"
    (b / "scenario_state.json").write_text(json.dumps(state), encoding="utf-8")
    revised = evalsig.load(b, metric="exact_match", split="test")
    with pytest.raises(
        AlignmentError, match=r"content key .*\('id147': 'internalmeaning' vs 'revised'\)"
    ):
        evalsig.compare(baseline, revised)


@pytest.mark.shared_data
def test_suite_directory(runs: Path, tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    for run in (MMLU, HELLASWAG, NARRATIVE):
        _copy_run(runs / run, suite, "openai_gpt2")
    (suite / "eval_cache").mkdir()
    d = describe(suite)
    assert [t.name for t in d.tasks] == [
        "commonsense:dataset=hellaswag,method=multiple_choice_joint",
        MMLU_TASK,
        "narrative_qa",
    ]
    tables = load_tasks(suite, metric="exact_match", split="test")
    assert [t.n_items for t in tables.values()] == [9, 4]  # hellaswag has no test split
    assert any(
        "commonsense" in n and "no split 'test'; it gives no items" in n for n in _notes(tables)
    )

    _copy_run(runs / MMLU, suite, "other_model")
    with pytest.raises(DataError, match=r"2 models \('openai/gpt2', 'other/model'\); .*--where"):
        describe(suite)
    one_model = evalsig.load(f"{suite}/mmlu*model=other_model", metric="exact_match")
    assert one_model.n_items == 10
    chosen = evalsig.load(suite, metric="exact_match", where={"model": "other/model"})
    assert chosen.n_items == 10
    assert [t.name for t in describe(suite, where={"model": "openai/gpt2"}).tasks] == [
        t.name for t in d.tasks
    ]
    with pytest.raises(DataError, match=r"no run of model 'gpt-5'; models: 'openai/gpt2', 'o"):
        describe(suite, where={"model": "gpt-5"})
    with pytest.raises(DataError, match=r"by 'model' only .*; got 'split'"):
        describe(suite, where={"split": "test"})

    for spec in suite.glob("*/run_spec.json"):  # runs without run specs name no model
        spec.unlink()
    with pytest.raises(FormatError, match=rf"are both '{MMLU_TASK}' \(other models\?\)"):
        describe(suite)


@pytest.mark.shared_data
def test_version_from_the_run_spec(runs: Path, tmp_path: Path) -> None:
    run = _copy_run(runs / MMLU, tmp_path, "openai_gpt2")
    assert describe(run).layouts == (
        "helm v0.4.0 or later (adapter_spec names a model_deployment)",
    )
    spec = _json(run / "run_spec.json")
    del spec["adapter_spec"]["model_deployment"]  # as HELM v0.3.0 and earlier wrote it
    (run / "run_spec.json").write_text(json.dumps(spec), encoding="utf-8")
    assert describe(run).layouts == ("helm v0.1 - v0.3 (adapter_spec names a model only)",)
    (run / "run_spec.json").unlink()
    assert describe(run).layouts == ("helm (no run_spec.json: version unknown)",)


def _notes(tables: dict[str, evalsig.ScoreTable]) -> list[str]:
    return [n for t in tables.values() for n in t.notes]


@pytest.mark.shared_data
def test_task_from_directory_name(runs: Path, tmp_path: Path) -> None:
    target = tmp_path / NARRATIVE
    shutil.copytree(runs / NARRATIVE, target)
    (target / "run_spec.json").chmod(0o644)
    (target / "run_spec.json").unlink()
    assert describe(target).tasks[0].name == "narrative_qa"
    assert task_name("mmlu:model=a_b,subject=law,model_deployment=x_y") == "mmlu:subject=law"
    assert task_name("scenario") == "scenario"


# --- generated runs ----------------------------------------------------------------------


def _stat(metric: str, value: float | None, split: str = "test", **name: Any) -> dict[str, Any]:
    stat: dict[str, Any] = {"name": {"name": metric, "split": split, **name}}
    if value is None:
        return stat | {"count": 0, "sum": 0, "sum_squared": 0}
    return stat | {"count": 1, "sum": value, "sum_squared": value**2, "mean": value}


def _write_run(
    directory: Path, entries: list[Any], *, name: str = "toy:model=a_b", text: str | None = None
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "run_spec.json").write_text(json.dumps({"name": name}), encoding="utf-8")
    body = text if text is not None else json.dumps(entries)
    (directory / "per_instance_stats.json").write_text(body, encoding="utf-8")
    return directory


def _entry(instance: str, *stats: dict[str, Any], trial: int = 0, **extra: Any) -> dict[str, Any]:
    return {"instance_id": instance, "train_trial_index": trial, "stats": list(stats), **extra}


def test_trials_are_runs_and_sum_count(tmp_path: Path) -> None:
    run = _write_run(
        tmp_path / "r",
        [
            _entry("id1", _stat("em", 1.0), trial=0),
            _entry("id1", _stat("em", 0.0), trial=1),
            _entry("id2", {"name": {"name": "em", "split": "test"}, "count": 4, "sum": 3}),
            _entry("id2", _stat("em", 1.0), trial=1),
        ],
    )
    table = evalsig.load(run, metric="em")
    assert table.n_runs == 2
    assert _by_item(table) == {"id1": 0.5, "id2": pytest.approx(0.875)}  # (0.75 + 1) / 2
    assert describe(run).tasks[0].name == "toy"
    stats = run / "per_instance_stats.json"
    with gzip.open(run / "per_instance_stats.json.gz", "wb") as f:
        f.write(stats.read_bytes())
    stats.unlink()
    assert _by_item(evalsig.load(run, metric="em")) == _by_item(table)


def test_perturbations_are_items_of_their_own(tmp_path: Path) -> None:
    mix = {"name": "mild_mix", "robustness": True, "fairness": False, "computed_on": "perturbed"}
    entries = [
        _entry("id1", _stat("em", 1.0)),
        _entry("id2", _stat("em", 1.0)),
        _entry("id1", _stat("em", 0.0, perturbation=mix), perturbation=mix),
        _entry("id2", _stat("em", 1.0, perturbation=mix), perturbation=mix),
    ]
    run = _write_run(tmp_path / "r", entries)
    table = evalsig.load(run, metric="em")
    assert _by_item(table) == {"id1": 1, "id2": 1, "id1/mild_mix": 0, "id2/mild_mix": 1}
    assert any("perturbed instances are items of their own" in n for n in table.notes)
    clustered = evalsig.load(run, metric="em", cluster_column="instance_id")
    assert clustered.clusters is not None
    assert clustered.clusters.tolist() == ["id1", "id2", "id1", "id2"]
    assert describe(run).cluster_fields == ("instance_id",)

    typo = {"name": "typos", "prob": 0.1}
    clash = [_entry("id1", _stat("em", 1.0), perturbation=typo), _entry("id2", _stat("em", 1.0))]
    clash.append(_entry("id2", _stat("em", 1.0), perturbation={"name": "typos", "prob": 0.3}))
    with pytest.raises(FormatError, match="two perturbations are named 'typos'"):
        evalsig.load(_write_run(tmp_path / "c", clash), metric="em")


def test_sub_splits_are_cluster_fields(tmp_path: Path) -> None:
    run = _write_run(
        tmp_path / "r",
        [
            _entry("id1", _stat("em", 1.0, sub_split="toxic")),
            _entry("id2", _stat("em", 0.0, sub_split="non-toxic")),
        ],
    )
    assert describe(run).cluster_fields == ("sub_split",)
    table = evalsig.load(run, metric="em", cluster_column="sub_split")
    assert table.clusters is not None
    assert table.clusters.tolist() == ["toxic", "non-toxic"]
    with pytest.raises(DataError, match="no cluster field 'subject'"):
        evalsig.load(run, metric="em", cluster_column="subject")


def test_split_choice(tmp_path: Path) -> None:
    both = [
        _entry("id1", _stat("em", 1.0, "test"), _stat("em", 0.0, "valid")),
        _entry("id2", _stat("em", 1.0, "test"), _stat("em", 1.0, "valid")),
    ]
    run = _write_run(tmp_path / "r", both)
    with pytest.raises(
        DataError,
        match=r"instance 'id1' \(trial 0\) has stat 'em' under several splits \('test', "
        r"'valid'\); HELM evaluates an instance on one split, .* choose one with --split / split=",
    ):
        evalsig.load(run, metric="em")
    assert _by_item(evalsig.load(run, metric="em", split="valid")) == {"id1": 0, "id2": 1}
    with pytest.raises(DataError, match=r"no split 'train'; splits: 'test', 'valid'\."):
        evalsig.load(run, metric="em", split="train")


def test_malformed_stats(tmp_path: Path) -> None:
    entries = [
        _entry("id1", _stat("em", 1.0)),
        _entry("id2", _stat("em", None), _stat("f1", 0.5)),
        _entry("id3", {"name": {"name": "em", "split": "test"}, "count": 1}),
    ]
    run = _write_run(tmp_path / "r", entries)
    with pytest.raises(
        FormatError,
        match=r"r: per_instance_stats.json: entry 3: stat 'em': has no 'mean' or 'sum'/'count'",
    ):
        describe(run)
    with pytest.raises(FormatError, match=r"entry 2: stat 'em': has count 0: HELM recorded no"):
        evalsig.load(run / "per_instance_stats.json", metric="em")
    assert _by_item(evalsig.load(run, metric="f1")) == {"id2": 0.5}  # other stats do not matter
    skipped = evalsig.load(run, metric="em", skip_bad_lines=True)
    assert _by_item(skipped) == {"id1": 1.0}
    assert any("skipped 2 malformed record(s)" in n for n in skipped.notes)
    d = describe(run, skip_bad_lines=True)
    assert d.skipped == 1  # the stat without a value; count 0 is a note when no metric is set
    assert any("count 0 (no value) left out: 'em' (1)" in n for n in d.notes)
    with pytest.raises(DataError, match=r"r: no metric 'acc'; metrics: 'em', 'f1'\."):
        evalsig.load(run, metric="acc")

    bad_entries = [_entry("id1", _stat("em", 1.0)), ["id2"], {"instance_id": "id3", "stats": []}]
    with pytest.raises(FormatError, match=r"entry 2: is a JSON list, not a PerInstanceStats"):
        evalsig.load(_write_run(tmp_path / "e", bad_entries), metric="em")
    with pytest.raises(FormatError, match=r"entry 1: needs an 'instance_id' and an integer"):
        evalsig.load(_write_run(tmp_path / "t", bad_entries[2:]), metric="em")
    with pytest.raises(FormatError, match=r"entry 1: stat 1: has no 'name'"):
        evalsig.load(_write_run(tmp_path / "n", [_entry("id1", {"count": 1})]), metric="em")


def test_malformed_files(tmp_path: Path) -> None:
    truncated = _write_run(tmp_path / "j", [], text='[{"instance_id": "id1", "stats": [')
    with pytest.raises(FormatError, match=r"per_instance_stats.json: not valid JSON \("):
        evalsig.load(truncated, metric="em")
    with pytest.raises(FormatError, match=r"expected a JSON list of per-instance stats .* dict"):
        evalsig.load(_write_run(tmp_path / "d", [], text="{}"), metric="em")
    with pytest.raises(FormatError, match=r"got an empty list"):
        evalsig.load(_write_run(tmp_path / "l", []), metric="em")
    no_name = _write_run(tmp_path / "s", [_entry("id1", _stat("em", 1.0))])
    (no_name / "run_spec.json").write_text("{}", encoding="utf-8")
    with pytest.raises(FormatError, match=r"run_spec.json: no run spec 'name'"):
        evalsig.load(no_name, metric="em")
    state = _write_run(tmp_path / "k", [_entry("id1", _stat("em", 1.0))])
    states = [
        {"instance": {"id": "id1", "references": [{"output": {"text": "4"}, "tags": ["correct"]}]},
         "train_trial_index": 0},
        {"instance": {"references": []}, "train_trial_index": 0},
    ]  # fmt: skip
    (state / "scenario_state.json").write_text(json.dumps({"request_states": states}), "utf-8")
    with pytest.raises(FormatError, match=r"k: scenario_state.json: request state 2: lacks"):
        evalsig.load(state, metric="em")
    keyed = evalsig.load(state, metric="em", skip_bad_lines=True)
    assert keyed.keys is not None
    assert keyed.keys.tolist() == ["4"]
    with pytest.raises(DataError, match=r"one content key, 'correct_references'"):
        evalsig.load(state, metric="em", key_column="doc_hash", skip_bad_lines=True)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FormatError, match=r"no per_instance_stats.json in the directory"):
        evalsig.load(empty, format="helm")


def test_task_is_chosen_before_the_metric_is_checked(tmp_path: Path) -> None:
    """A glob over several tasks: --metric Y exists only in task X, and --task X is given."""
    _write_run(
        tmp_path / "suite" / "mmlu:model=a_b",
        [_entry("i1", _stat("exact_match", 1.0)), _entry("i2", _stat("exact_match", 0.0))],
        name="mmlu:subject=anatomy,model=a_b",
    )
    _write_run(
        tmp_path / "suite" / "gsm:model=a_b",
        [_entry("g1", _stat("final_number_exact_match", 1.0))],
        name="gsm:model=a_b",
    )
    pattern = str(tmp_path / "suite" / "*model=a_b")
    table = evalsig.load(pattern, task="gsm", metric="final_number_exact_match")
    assert table.n_items == 1
    with pytest.raises(DataError, match=r"no task 'nope'; tasks: 'gsm', 'mmlu:subject=anatomy'"):
        evalsig.load(tmp_path / "suite", task="nope", metric="exact_match")


@pytest.mark.shared_data
def test_inspect_names_the_version_and_chooses_a_model(runs: Path) -> None:
    from typer.testing import CliRunner

    from evalsig.cli import app

    runner = CliRunner()
    several = runner.invoke(app, ["inspect", str(runs)])
    assert several.exit_code == 4
    assert "holds runs of 2 models ('eleutherai/pythia-1b-v0', 'openai/gpt2')" in several.output
    chosen = runner.invoke(app, ["inspect", str(runs), "--where", "model=openai/gpt2"])
    assert chosen.exit_code == 0, chosen.output
    assert "[helm v0.4.0 or later (adapter_spec names a model_deployment)]" in chosen.output
    assert "mmlu:subject=philosophy" in chosen.output
    assert "hellaswag" not in chosen.output
