"""The Inspect AI extension: real offline evaluations with the mean_ci metric, EvalLog
objects read as the file reader reads their files, two logs compared, and the errors."""

from __future__ import annotations

import gc
import math
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

pytest.importorskip(
    "inspect_ai", reason="the Inspect extension needs inspect_ai (evalsig-stats[inspect-ai])"
)

pytestmark = [
    # inspect-ai 0.3.285 passes tenacity 9.2's deprecated 'initial' on every model call
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    # and leaves anyio memory streams for the garbage collector (collected in `logs`)
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in.*MemoryObjectReceiveStream"
        ":pytest.PytestUnraisableExceptionWarning"
    ),
]

from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import EvalError, EvalLog, ProvenanceData, read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import SampleScore, Score, Scorer, mean, scorer, stderr  # noqa: E402

import evalsig  # noqa: E402
from evalsig.errors import AlignmentError, DataError, FormatError  # noqa: E402
from evalsig.inference import cluster_robust, paired_t  # noqa: E402
from evalsig.integrations.inspect_ai import (  # noqa: E402
    compare_logs,
    mean_ci,
    table_from_eval_log,
)

# Each sample's scores in epochs 1 and 2, in every form Inspect's value_to_float reads.
BASELINE = {
    "q0": ["C", "I"],  # 0.5
    "q1": ["C", "C"],  # 1
    "q2": ["I", "I"],  # 0
    "q3": [True, 0.5],  # 0.75
    "q4": ["P", "C"],  # 0.75
    "q5": ["N", "I"],  # 0
    "q6": [0.25, "0.75"],  # 0.5
    "q7": ["false", "I"],  # 0
}
BASELINE_MEANS = [0.5, 1.0, 0.0, 0.75, 0.75, 0.0, 0.5, 0.0]
CANDIDATE = {
    "q0": ["C", "C"],
    "q1": ["C", "C"],
    "q2": ["C", "P"],
    "q3": [True, True],
    "q4": ["C", "yes"],
    "q5": ["I", "C"],
    "q6": ["C", 1],
    "q7": ["I", "N"],
}
CANDIDATE_MEANS = [1.0, 1.0, 0.75, 1.0, 1.0, 0.5, 1.0, 0.0]
SUBJECTS = {"q0": "a", "q1": "a", "q2": "a", "q3": "b", "q4": "b", "q5": "c", "q6": "c", "q7": "c"}
"""Clusters of unequal sizes (3, 2, 3), so that CR2 and CR1 differ."""

METRICS = [
    mean(),
    stderr(),
    stderr(cluster="subject"),
    mean_ci(),
    mean_ci(cluster="subject", method="cr1"),
    mean_ci(0.9, cluster="subject"),
]


def _reply(*_: object) -> ModelOutput:
    """The mock model's answer, with its token usage (so that nothing counts tokens online)."""
    output = ModelOutput.from_content(model="mockllm", content="A")
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


@scorer(metrics=METRICS)
def from_metadata(side: str = "baseline") -> Scorer:
    """Scores each epoch with the value the sample's metadata holds for it."""

    async def score(state: Any, target: Any) -> Score:
        return Score(value=state.metadata[side][state.epoch - 1])

    return score


def _task(side: str) -> Task:
    samples = [
        Sample(
            id=item,
            input=f"question {item}",
            target="A",
            metadata={"baseline": BASELINE[item], "candidate": CANDIDATE[item], "subject": s},
        )
        for item, s in SUBJECTS.items()
    ]
    return Task(dataset=samples, scorer=from_metadata(side), epochs=2, name="demo")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """Real offline Inspect evaluations (mockllm/model) of both sides, and the candidate's
    log without samples q6 and q7 (as if they had not been run)."""
    model = get_model("mockllm/model", custom_outputs=_reply)
    log_dir = str(tmp_path_factory.mktemp("inspect-logs"))
    tasks = [_task("baseline"), _task("candidate")]
    baseline, candidate = eval(tasks, model=model, log_dir=log_dir, display="none", max_tasks=2)
    gc.collect()  # Inspect's leftover streams, now (under this module's filters), not later
    assert (baseline.status, candidate.status) == ("success", "success")
    assert candidate.samples is not None
    kept = [s for s in candidate.samples if s.id not in ("q6", "q7")]
    short = candidate.model_copy(update={"samples": kept, "location": ""})
    return {"baseline": baseline, "candidate": candidate, "short": short}


def _metric_values(log: EvalLog) -> dict[tuple[Any, ...], dict[str, float]]:
    """Each metric's values by (group, params): Inspect names repeated keys 'mean2', ..."""
    assert log.results is not None
    found: dict[tuple[Any, ...], dict[str, float]] = {}
    for score in log.results.scores:
        for metric in score.metrics.values():
            params = tuple(sorted((k, v) for k, v in metric.params.items() if k != "to_float"))
            found.setdefault((metric.group or metric.name, params), {})[metric.name] = metric.value
    return found


def _ours(log: EvalLog, level: float, method: str, cluster: str | None) -> dict[str, float]:
    params = (("cluster", cluster), ("confidence_level", level), ("method", method))
    return _metric_values(log)[("mean_ci", params)]


# --- the metric in a real evaluation ---------------------------------------------------------


def test_the_metric_matches_inspect_and_evalsig(logs: dict[str, EvalLog]) -> None:
    log = logs["baseline"]
    inspect_values = _metric_values(log)
    inspect_mean = inspect_values[("mean", ())]["mean"]
    inspect_se = inspect_values[("stderr", ())]["stderr"]
    inspect_cluster_se = inspect_values[("stderr", (("cluster", "subject"),))]["stderr"]
    n, g = 8, 3

    plain = _ours(log, 0.95, "auto", None)
    assert plain["mean"] == pytest.approx(np.mean(BASELINE_MEANS), rel=1e-12)
    assert plain["mean"] == pytest.approx(inspect_mean, rel=1e-12)  # under the mean reducer
    assert plain["stderr"] == pytest.approx(inspect_se, rel=1e-12)  # samples, not epochs
    half = stats.t.ppf(0.975, n - 1) * plain["stderr"]
    assert (plain["ci_low"], plain["ci_high"]) == pytest.approx(
        (plain["mean"] - half, plain["mean"] + half), rel=1e-12
    )
    reference = paired_t(np.zeros(n), np.array(BASELINE_MEANS))
    assert plain["stderr"] == pytest.approx(reference.se, rel=1e-12)

    # CR1: Inspect's clustered standard error, on t(G - 1)
    cr1 = _ours(log, 0.95, "cr1", "subject")
    assert cr1["stderr"] == pytest.approx(inspect_cluster_se, rel=1e-12)
    half = stats.t.ppf(0.975, g - 1) * cr1["stderr"]
    assert cr1["ci_low"] == pytest.approx(cr1["mean"] - half, rel=1e-12)
    assert cr1["ci_high"] == pytest.approx(cr1["mean"] + half, rel=1e-12)

    # CR2 at 90% (method "auto" with a cluster): the plain formula, and evalsig's function
    cr2 = _ours(log, 0.9, "auto", "subject")
    y, labels = np.array(BASELINE_MEANS), np.array(list(SUBJECTS.values()))
    residuals = {c: float(np.sum(y[labels == c] - y.mean())) for c in "abc"}
    sizes = {c: int(np.sum(labels == c)) for c in "abc"}
    se = math.sqrt(sum(residuals[c] ** 2 / (1 - sizes[c] / n) for c in "abc")) / n
    w = np.array([sizes[c] / n for c in "abc"])
    b = w * w / (1 - w)
    df = 1 / (np.sum(w * w) - np.sum(b * b) + np.sum(b) ** 2)
    assert cr2["stderr"] == pytest.approx(se, rel=1e-12)
    assert cr2["stderr"] != pytest.approx(cr1["stderr"], rel=1e-3)
    assert cr2["ci_high"] - cr2["mean"] == pytest.approx(stats.t.ppf(0.95, df) * se, rel=1e-9)
    table = evalsig.load(log.location, cluster_column="subject")
    assert table.clusters is not None
    reference = cluster_robust(
        np.zeros(n), table.means, table.clusters, method="cr2", confidence_level=0.9
    )
    assert (cr2["ci_low"], cr2["ci_high"]) == pytest.approx(tuple(reference.ci), rel=1e-12)


def test_the_metric_is_registered_with_inspect_by_name(logs: dict[str, EvalLog]) -> None:
    from inspect_ai._util.registry import registry_info, registry_lookup

    found = registry_lookup("metric", "evalsig/mean_ci")
    assert found is not None
    made = found(cluster="subject")
    assert registry_info(made).name == "evalsig/mean_ci"
    assert registry_info(made).metadata == {"scores": "unreduced"}  # it sees every epoch
    assert set(_metric_values(logs["baseline"])) >= {
        ("mean_ci", (("cluster", None), ("confidence_level", 0.95), ("method", "auto")))
    }


# --- the metric called directly -------------------------------------------------------------


def _scores(values: dict[str, list[object]], **metadata: dict[str, object]) -> list[SampleScore]:
    return [
        SampleScore(
            score=Score(value=value),
            sample_id=item,
            sample_metadata={k: v[item] for k, v in metadata.items() if item in v},
            scorer="match",
        )
        for item, epochs in values.items()
        for value in epochs
    ]


def test_epochs_are_averaged_within_a_sample_before_the_interval() -> None:
    ragged = _scores({"q1": [1, 0, 1], "q2": [0], "q3": ["C", "C"]})
    values = mean_ci()(ragged)
    means = np.array([2 / 3, 0.0, 1.0])  # each sample weighs the same, not each epoch
    reference = paired_t(np.zeros(3), means)
    expected = {"mean": 5 / 9, "stderr": reference.se}
    expected |= {"ci_low": reference.ci.low, "ci_high": reference.ci.high}
    assert values == pytest.approx(expected, rel=1e-12)


def test_too_few_samples_or_clusters_give_nan_not_an_error() -> None:
    """Inspect computes metrics as samples finish, and on no samples for an empty value."""
    empty = mean_ci()([])
    assert set(empty) == {"mean", "stderr", "ci_low", "ci_high"}
    assert all(math.isnan(v) for v in empty.values())
    one = mean_ci()(_scores({"q1": ["C", "I"]}))
    assert one["mean"] == 0.5
    assert math.isnan(one["ci_low"])
    one_cluster = mean_ci(cluster="subject")(
        _scores({"q1": [1], "q2": [0]}, subject={"q1": "a", "q2": "a"})
    )
    assert one_cluster["mean"] == 0.5
    assert math.isnan(one_cluster["stderr"])
    equal = mean_ci()(_scores({"q1": ["C"], "q2": [1]}))
    assert (equal["ci_low"], equal["ci_high"]) == (1.0, 1.0)


def test_metric_errors() -> None:
    with pytest.raises(DataError, match=r"method='cr2' is cluster-robust and needs `cluster`"):
        mean_ci(method="cr2")
    with pytest.raises(DataError, match=r"method='t' treats samples as independent"):
        mean_ci(method="t", cluster="subject")
    with pytest.raises(DataError, match=r"`method` must be one of 'auto', 't', 'cr2', 'cr1'"):
        mean_ci(method="bootstrap")
    with pytest.raises(DataError, match=r"`confidence_level` must be a number strictly"):
        mean_ci(1.5)
    with pytest.raises(DataError, match=r"`cluster` names a field .*; got ''"):
        mean_ci(cluster="")
    multi = _scores({"q1": ["C"], "q2": [{"a": 1}]})
    with pytest.raises(
        DataError, match=r"sample 'q2' of scorer 'match' has the value \{'a': 1\}, which is not"
    ):
        mean_ci()(multi)
    unlabelled = _scores({"q1": [1], "q2": [0]}, subject={"q1": "a"})
    with pytest.raises(FormatError, match=r"sample 'q2' has no cluster label 'subject'"):
        mean_ci(cluster="subject")(unlabelled)
    moving = _scores({"q1": [1], "q2": [0]}, subject={"q1": "a", "q2": "b"})
    moving[1] = SampleScore(
        score=Score(value=1), sample_id="q1", sample_metadata={"subject": "b"}, scorer="match"
    )
    with pytest.raises(FormatError, match=r"sample 'q1' has two cluster labels \('a' and 'b'"):
        mean_ci(cluster="subject")(moving)


# --- EvalLog objects as tables ----------------------------------------------------------------


def test_an_eval_log_reads_as_its_file_does(logs: dict[str, EvalLog]) -> None:
    log = logs["baseline"]
    for cluster in (None, "subject"):
        in_memory = table_from_eval_log(log, cluster=cluster)
        from_file = evalsig.load(log.location, cluster_column=cluster)
        reread = table_from_eval_log(read_eval_log(log.location), cluster=cluster)
        for table in (from_file, reread):
            assert table.item_ids is not None
            assert in_memory.item_ids is not None
            assert in_memory.item_ids.tolist() == table.item_ids.tolist()
            assert in_memory.counts.tolist() == table.counts.tolist() == [2] * 8
            assert in_memory.sums.tolist() == table.sums.tolist()
            assert in_memory.sumsq.tolist() == table.sumsq.tolist()
            assert in_memory.keys is not None
            assert table.keys is not None
            assert in_memory.keys.tolist() == table.keys.tolist() == ["A"] * 8
            assert (in_memory.source, in_memory.notes) == (table.source, table.notes)
            if cluster is not None:
                assert in_memory.clusters is not None
                assert table.clusters is not None
                assert in_memory.clusters.tolist() == table.clusters.tolist()
    assert in_memory.item_ids.tolist() == list(SUBJECTS)
    assert in_memory.means.tolist() == BASELINE_MEANS
    origin, file_origin = in_memory.origin, from_file.origin
    assert origin is not None
    assert file_origin is not None
    assert (origin.model, origin.model_from) == ("mockllm/model", "harness metadata")
    assert (origin.task, origin.metric) == ("demo", "from_metadata")
    assert origin.files == file_origin.files  # the log's file, with its SHA-256
    assert (origin.format, origin.layout) == ("EvalLog", "log format 2 (EvalLog in memory)")
    assert file_origin.format == "inspect"


def test_an_eval_log_without_a_file_is_named_by_task_and_model(logs: dict[str, EvalLog]) -> None:
    log = logs["baseline"].model_copy(update={"location": ""})
    table = table_from_eval_log(log)
    assert table.source == "EvalLog of task 'demo' (model 'mockllm/model') (task 'demo')"
    assert table.origin is not None
    assert table.origin.files == ()


def _with(log: EvalLog, item: str, epoch: int = 1, **fields: Any) -> EvalLog:
    """The log with one sample's fields replaced."""
    assert log.samples is not None
    samples = [
        s.model_copy(update=fields) if (s.id, s.epoch) == (item, epoch) else s for s in log.samples
    ]
    return log.model_copy(update={"samples": samples, "location": ""})


def test_eval_log_errors(logs: dict[str, EvalLog]) -> None:
    log = logs["baseline"]
    name = r"EvalLog of task 'demo' \(model 'mockllm/model'\)"
    with pytest.raises(DataError, match=r"`log` is a dict, not an Inspect EvalLog"):
        table_from_eval_log({"eval": {"task": "demo"}})
    header_only = read_eval_log(log.location, header_only=True)
    with pytest.raises(FormatError, match=r"holds no samples: it was read with header_only=True"):
        table_from_eval_log(header_only)
    with pytest.raises(FormatError, match=rf"{name}: the log holds no samples"):
        table_from_eval_log(log.model_copy(update={"samples": [], "location": ""}))

    unscored = _with(log, "q2", scores=None)
    with pytest.raises(FormatError, match=rf"{name}: sample 'q2' \(epoch 1\): has no scores"):
        table_from_eval_log(unscored)
    skipped = table_from_eval_log(unscored, skip_bad_lines=True)
    assert skipped.item_ids is not None
    counts = dict(zip(skipped.item_ids.tolist(), skipped.counts.tolist(), strict=True))
    assert counts == {item: 1 if item == "q2" else 2 for item in SUBJECTS}
    assert any("skipped 1 malformed record(s)" in note for note in skipped.notes)

    error = EvalError(message="RuntimeError: boom\nmore", traceback="", traceback_ansi="")
    with pytest.raises(
        FormatError, match=r"sample 'q3' \(epoch 2\): errored \('RuntimeError: boom'"
    ):
        table_from_eval_log(_with(log, "q3", 2, error=error))
    invalid = _with(log, "q4", invalidation=ProvenanceData(author="me", reason="leak"))
    with pytest.raises(FormatError, match=r"sample 'q4' \(epoch 1\): was invalidated \('leak'\)"):
        table_from_eval_log(invalid)
    multi = _with(log, "q1", scores={"from_metadata": Score(value={"a": 1, "b": 0})})
    with pytest.raises(FormatError, match=r"scorer 'from_metadata' gave a dict of values"):
        table_from_eval_log(multi)

    assert log.samples is not None
    two = [
        s.model_copy(update={"scores": {**(s.scores or {}), "judge": Score(value=0.5)}})
        for s in log.samples
    ]
    several = log.model_copy(update={"samples": two})
    with pytest.raises(
        DataError, match=r"several scorers \('from_metadata', 'judge'\); choose one with scorer="
    ):
        table_from_eval_log(several)
    with pytest.raises(DataError, match=r"no scorer 'acc'; choose one of 'from_metadata', 'judge'"):
        table_from_eval_log(several, scorer="acc")
    assert table_from_eval_log(several, scorer="judge").means.tolist() == [0.5] * 8
    with pytest.raises(DataError, match=r"no cluster field 'topic' in task 'demo'"):
        table_from_eval_log(log, cluster="topic")


# --- two logs compared ----------------------------------------------------------------------


def test_compare_logs(logs: dict[str, EvalLog]) -> None:
    baseline, candidate = logs["baseline"], logs["candidate"]
    result = compare_logs(baseline, candidate, method="paired-t")
    assert result.method == "paired-t"  # two epochs: per-sample means, samples the units
    assert (result.n_items, result.n_runs) == (8, (2, 2))
    # scipy.stats.ttest_rel on the per-sample means over the two epochs
    reference = stats.ttest_rel(CANDIDATE_MEANS, BASELINE_MEANS)
    assert result.estimate == pytest.approx(np.mean(CANDIDATE_MEANS) - np.mean(BASELINE_MEANS))
    assert result.pvalue == pytest.approx(reference.pvalue, rel=1e-12)
    from_files = evalsig.compare(baseline.location, candidate.location, method="paired-t")
    assert (result.estimate, result.pvalue, tuple(result.ci)) == (
        from_files.estimate,
        from_files.pvalue,
        tuple(from_files.ci),
    )
    assert result.provenance is not None
    sides = dict(result.provenance.inputs)
    assert sides["baseline"] is not None
    assert sides["candidate"] is not None
    assert sides["baseline"].model == sides["candidate"].model == "mockllm/model"
    assert sides["candidate"].files[0].path == candidate.location

    clustered = compare_logs(baseline, candidate, cluster="subject", one_sided=True)
    assert (clustered.method, clustered.n_clusters, clustered.alternative) == (
        "cluster-cr2",
        3,
        "greater",
    )


def test_compare_logs_errors(logs: dict[str, EvalLog]) -> None:
    baseline, short = logs["baseline"], logs["short"]
    with pytest.raises(AlignmentError, match=r"q6.*q7|q7.*q6"):
        compare_logs(baseline, short)
    result = compare_logs(baseline, short, on_missing="intersect")
    assert (result.n_items, result.n_dropped) == (6, (2, 0))

    assert baseline.samples is not None
    retargeted = baseline.model_copy(
        update={
            "samples": [
                s.model_copy(update={"target": "B"}) if s.id == "q5" else s
                for s in baseline.samples
            ]
        }
    )
    with pytest.raises(AlignmentError, match=r"1 item\(s\) have a different content key"):
        compare_logs(retargeted, logs["candidate"])
    assert compare_logs(retargeted, logs["candidate"], on_mismatch="exclude").n_items == 7


# --- the entry point --------------------------------------------------------------------------


def test_inspect_ai_loads_lazily_and_finds_the_metric_through_the_entry_point(
    tmp_path: Path,
) -> None:
    """``import evalsig`` and the extension import no ``inspect_ai``; Inspect, looking up a
    name in the ``evalsig/`` namespace, loads the ``evalsig`` entry point of its group
    ``inspect_ai``. A distribution declaring it is made here, since the editable install
    shows the entry point only once pyproject.toml declares it."""
    dist = tmp_path / "evalsig_entry_point-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: evalsig-entry-point\nVersion: 0\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        "[inspect_ai]\nevalsig = evalsig.integrations._registry\n", encoding="utf-8"
    )
    script = (
        "import sys, evalsig\n"
        "from evalsig.integrations import inspect_ai, inspect_metrics\n"
        "assert not [m for m in sys.modules if m.startswith('inspect_ai')], 'imported'\n"
        "from inspect_ai._util.registry import registry_lookup\n"
        "assert inspect_metrics._metric_factory.cache_info().currsize == 0, 'registered'\n"
        "assert 'evalsig.integrations._registry' not in sys.modules\n"
        "found = registry_lookup('metric', 'evalsig/mean_ci')\n"
        "print(found is not None, 'evalsig.integrations._registry' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "True True"), done.stderr


def test_the_installed_package_declares_the_entry_point() -> None:
    declared = [e for e in metadata.entry_points(group="inspect_ai") if e.name == "evalsig"]
    if not declared:
        pytest.skip("pyproject.toml does not declare the inspect_ai entry point yet (reinstall)")
    assert [e.value for e in declared] == ["evalsig.integrations._registry"]


# --- an absent or old Inspect -----------------------------------------------------------------


def test_a_missing_or_old_inspect_is_named_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    import inspect_ai.scorer

    from evalsig.integrations import inspect_metrics

    inspect_metrics._metric_factory.cache_clear()
    try:
        with monkeypatch.context() as patch:
            patch.setitem(sys.modules, "inspect_ai.scorer", None)
            with pytest.raises(
                ImportError, match=r"need inspect_ai: pip install 'evalsig-stats\[inspect-ai\]'"
            ):
                mean_ci()

        def metric(name: str) -> object:  # the decorator before 0.3.241: no `scores`
            raise AssertionError("not reached")

        with monkeypatch.context() as patch:
            patch.setattr(inspect_ai.scorer, "metric", metric)
            with pytest.raises(
                ImportError, match=r"need inspect_ai 0\.3\.241 or later .*installed: "
            ):
                mean_ci()
    finally:
        inspect_metrics._metric_factory.cache_clear()
    assert mean_ci()(_scores({"q1": [1], "q2": [0]}))["mean"] == 0.5
