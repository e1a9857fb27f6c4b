"""The DuckDB results store: round trips, duplicate and conflicting files, model names."""

from __future__ import annotations

import shutil
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from evalsig.data import ReadOptions, load
from evalsig.data.models import ModelScores, load_models, model_scores
from evalsig.data.table import ScoreTable
from evalsig.errors import AlignmentError, DataError
from evalsig.store import ResultsStore

pytest.importorskip(
    "duckdb", reason="the results store needs duckdb: pip install 'evalsig-stats[store]'"
)

MODELS = ("small", "medium", "large")
N_ITEMS = 40


def _write_runs(folder: Path, model: str, skill: float, *, seed: int, skip: int = 0) -> Path:
    """A long CSV of one model: 2 runs per item, continuous scores, a cluster column."""
    rng = np.random.default_rng(seed)
    lines = ["item,run,score,subject,answer"]
    for run in (1, 2):
        for i in range(skip, N_ITEMS):  # the first `skip` items are missing for this model
            score = float(np.clip(skill + rng.normal(0, 0.2), 0, 1))
            lines.append(f"q{i},{run},{score!r},s{i % 4},{'ABCD'[i % 4]}")
    path = folder / f"{model}.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "results"
    folder.mkdir()
    return {
        model: _write_runs(folder, model, skill, seed=seed, skip=3 if model == "small" else 0)
        for seed, (model, skill) in enumerate(zip(MODELS, (0.4, 0.55, 0.7), strict=True))
    }


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ResultsStore]:
    with ResultsStore(tmp_path / "results.duckdb") as db:
        yield db


def _ingest_all(store: ResultsStore, files: dict[str, Path]) -> None:
    for model, path in files.items():
        store.ingest(path, model=model, task="quiz", cluster_column="subject", key_column="answer")


def _direct(files: dict[str, Path]) -> dict[str, ScoreTable]:
    return {
        model: load(path, cluster_column="subject", key_column="answer")
        for model, path in files.items()
    }


def _assert_same_tables(got: ScoreTable, want: ScoreTable) -> None:
    assert got.item_ids is not None
    assert want.item_ids is not None
    assert got.item_ids.tolist() == want.item_ids.tolist()
    for name in ("sums", "sumsq", "counts"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert got.binary == want.binary
    for name in ("clusters", "keys"):
        a, b = getattr(got, name), getattr(want, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.tolist() == b.tolist(), name


def _assert_same_scores(got: ModelScores, want: ModelScores) -> None:
    assert got.names == want.names
    assert got.item_ids.tolist() == want.item_ids.tolist()
    assert np.array_equal(got.scores, want.scores, equal_nan=True)  # exactly, bit for bit
    assert got.binary == want.binary
    assert got.n_runs == want.n_runs
    assert got.notes == want.notes
    assert got.input_counts.tolist() == want.input_counts.tolist()
    assert got.n_mismatched == want.n_mismatched
    for name in ("cluster_codes", "cluster_labels", "key_codes", "key_labels"):
        a, b = getattr(got, name), getattr(want, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.tolist() == b.tolist(), name


# --- round trips --------------------------------------------------------------------------


def test_round_trip_equals_reading_the_files(store: ResultsStore, files: dict[str, Path]) -> None:
    _ingest_all(store, files)
    direct = _direct(files)
    # 'small' lacks 3 items: the models are compared on the items all three have
    with pytest.raises(AlignmentError, match="'small' lacks 3"):
        store.model_scores("quiz")
    _assert_same_scores(
        store.model_scores("quiz", on_missing="intersect"),
        model_scores(direct, on_missing="intersect"),
    )
    for model in MODELS:
        _assert_same_tables(store.table(model, "quiz"), direct[model])
    assert store.tasks() == ("quiz",)
    assert store.models("quiz") == MODELS
    (task,) = store.contents()
    assert (task.task, task.metric, task.filter, task.n_items) == ("quiz", "score", None, N_ITEMS)
    assert [(m.name, m.n_items, m.runs) for m in task.models] == [
        ("small", N_ITEMS - 3, (2, 2)),
        ("medium", N_ITEMS, (2, 2)),
        ("large", N_ITEMS, (2, 2)),
    ]


def test_round_trip_survives_reopening(tmp_path: Path, files: dict[str, Path]) -> None:
    with ResultsStore(tmp_path / "r.duckdb") as db:
        _ingest_all(db, files)
    with ResultsStore(tmp_path / "r.duckdb", read_only=True) as db:
        _assert_same_scores(
            db.model_scores("quiz", on_missing="intersect"),
            model_scores(_direct(files), on_missing="intersect"),
        )
        subset = db.model_scores("quiz", models=["large", "small"], on_missing="intersect")
    assert subset.names == ("large", "small")


def test_runs_in_separate_files_with_run_labels(store: ResultsStore, tmp_path: Path) -> None:
    paths = []
    for run in (1, 2):
        path = tmp_path / f"seed{run}.csv"
        rows = [f"q{i},{(i * run) % 3 / 2}" for i in range(10)]
        path.write_text("id,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
        paths.append(path)
    store.ingest(paths[0], model="m", task="t", run_label="seed1")
    store.ingest(paths[1], model="m", task="t", run_label="seed2")
    _assert_same_tables(store.table("m", "t"), load(paths))  # two files: two runs
    assert store.table("m", "t").n_runs == 2


def test_model_names_come_from_a_model_column(store: ResultsStore, tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    rows = [f"{m},q{i},{int((i + j) % 3 == 0)}" for j, m in enumerate(MODELS) for i in range(9)]
    path.write_text("model,id,correct\n" + "\n".join(rows) + "\n", encoding="utf-8")
    report = store.ingest(path, model_column="model", task="arith")
    assert report.sources[0].models == MODELS
    assert report.sources[0].model_origins == (
        "3 models ('small', 'medium', 'large') from column 'model'",
    )
    _assert_same_scores(store.model_scores("arith"), load_models(path, model_column="model"))


def test_an_empty_model_cell_is_an_error(store: ResultsStore, tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_text("model,id,correct\na,q1,1\n,q1,0\n", encoding="utf-8")
    with pytest.raises(
        DataError, match=r"empty model column 'model'|line 3: field 'model' is empty"
    ):
        store.ingest(path, model_column="model", task="t")


# --- duplicates and conflicts -------------------------------------------------------------


def test_same_content_is_skipped_not_loaded_twice(
    store: ResultsStore, files: dict[str, Path], tmp_path: Path
) -> None:
    first = store.ingest(files["small"], model="small", task="quiz")
    assert first.sources[0].status == "ingested"
    assert first.n_rows == 2 * (N_ITEMS - 3)
    copy = tmp_path / "copy_of_small.csv"
    shutil.copyfile(files["small"], copy)
    again = store.ingest([files["small"], copy], model="small", task="quiz")
    assert [s.status for s in again.sources] == ["skipped", "skipped"]
    assert [s.duplicate_of for s in again.sources] == [str(files["small"])] * 2
    assert again.n_rows == 0
    assert len(store.sources()) == 1
    assert store.table("small", "quiz").counts.sum() == 2 * (N_ITEMS - 3)


def test_same_content_twice_in_one_call_is_loaded_once(
    store: ResultsStore, files: dict[str, Path], tmp_path: Path
) -> None:
    copy = tmp_path / "copy.csv"
    shutil.copyfile(files["large"], copy)
    report = store.ingest([files["large"], copy], model="large", task="quiz")
    assert [s.status for s in report.sources] == ["ingested", "skipped"]
    assert report.sources[1].duplicate_of == str(files["large"])


def test_a_conflicting_file_is_refused_naming_both_files(
    store: ResultsStore, files: dict[str, Path], tmp_path: Path
) -> None:
    store.ingest(files["large"], model="large", task="quiz")
    rerun = _write_runs(tmp_path, "large_rerun", 0.9, seed=99)
    extra = tmp_path / "extra_items.csv"
    extra.write_text("item,run,score\nx1,1,0.5\nx1,2,0.25\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        # the first path is new and fine: the whole call is refused, nothing is stored
        store.ingest([extra, rerun], model="large", task="quiz")
    message = str(info.value)
    assert str(rerun) in message
    assert str(files["large"]) in message
    assert "--replace" in message
    assert "80 of model 'large' on task 'quiz' (e.g. item 'q0', run '1')" in message
    assert [s.path for s in store.sources()] == [str(files["large"])]
    _assert_same_tables(store.table("large", "quiz"), load(files["large"]))


def test_replace_swaps_the_stored_scores(
    store: ResultsStore, files: dict[str, Path], tmp_path: Path
) -> None:
    store.ingest(files["large"], model="large", task="quiz")
    rerun = _write_runs(tmp_path, "large_rerun", 0.9, seed=99)
    report = store.ingest(rerun, model="large", task="quiz", replace=True)
    assert report.sources[0].replaced == (
        f"80 scores of model 'large' on task 'quiz' from {files['large']}",
    )
    _assert_same_tables(store.table("large", "quiz"), load(rerun))
    assert [s.path for s in store.sources()] == [str(rerun)]  # the emptied source is gone


# --- errors -------------------------------------------------------------------------------


def test_a_file_that_names_no_model_needs_one(store: ResultsStore, files: dict[str, Path]) -> None:
    with pytest.raises(DataError) as info:
        store.ingest(files["small"], task="quiz")
    assert str(info.value) == (
        f"{files['small']}: cannot tell which model these scores are from: csv files do not "
        "name the model they scored. Give the model with --model NAME (model=), or name the "
        "model column of a long table with --model-column COLUMN (model_column=)."
    )


def test_a_file_that_names_no_task_needs_one(store: ResultsStore, files: dict[str, Path]) -> None:
    with pytest.raises(DataError, match=r"names no task; name it with --task NAME"):
        store.ingest(files["small"], model="small")


def test_invalid_scores_store_nothing(store: ResultsStore, tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("id,score\nq1,1\nq2,nan\n", encoding="utf-8")
    with pytest.raises(DataError, match="NaN"):
        store.ingest(path, model="m", task="t")
    assert store.sources() == ()
    assert store.tasks() == ()


def test_reading_unknown_tasks_models_and_metrics(
    store: ResultsStore, files: dict[str, Path]
) -> None:
    _ingest_all(store, files)
    with pytest.raises(DataError, match=r"no task 'quizz' in the store; tasks: 'quiz'"):
        store.model_scores("quizz")
    with pytest.raises(DataError, match=r"no scores of model\(s\) 'huge' on task 'quiz'"):
        store.model_scores("quiz", models=["small", "huge"])
    with pytest.raises(DataError, match=r"no metric 'acc'; choose one of 'score'"):
        store.table("small", "quiz", metric="acc")


def test_opening_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.duckdb"
    with pytest.raises(DataError, match="no results store there; create one with evalsig ingest"):
        ResultsStore(missing, read_only=True)
    with ResultsStore(missing) as db, pytest.raises(DataError, match="no results store there"):
        db.tasks()  # reading never creates a file
    assert not missing.exists()
    garbage = tmp_path / "garbage.duckdb"
    garbage.write_text("not a database" * 100, encoding="utf-8")
    with pytest.raises(DataError, match="cannot open the results store"):
        ResultsStore(garbage)
    import duckdb

    other = tmp_path / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE accounts (id INTEGER)")
    with pytest.raises(DataError, match="not an evalsig results store"):
        ResultsStore(other)


def test_read_only_store_refuses_to_ingest(tmp_path: Path, files: dict[str, Path]) -> None:
    with ResultsStore(tmp_path / "r.duckdb") as db:
        db.ingest(files["small"], model="small", task="quiz")
    with (
        ResultsStore(tmp_path / "r.duckdb", read_only=True) as db,
        pytest.raises(DataError, match="opened read-only"),
    ):
        db.ingest(files["large"], model="large", task="quiz")


def test_missing_duckdb_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb now raises ImportError
    with pytest.raises(DataError, match=r"pip install 'evalsig-stats\[store\]'"):
        ResultsStore(tmp_path / "r.duckdb")


def test_old_duckdb_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "duckdb", types.SimpleNamespace(__version__="1.1.3"))
    with pytest.raises(DataError, match=r"needs duckdb >= 1.2 .*; found 1.1.3"):
        ResultsStore(tmp_path / "r.duckdb")


def test_argument_checks(store: ResultsStore, files: dict[str, Path]) -> None:
    with pytest.raises(DataError, match="not both"):
        store.ingest(files["small"], model="a", model_column="model", task="t")
    with pytest.raises(DataError, match="ingest one task at a time"):
        store.ingest(files["small"], model_column="model", task_column="task")
    with pytest.raises(DataError, match="`model` is empty"):
        store.ingest(files["small"], model=" ", task="t")


def test_read_options_or_their_keywords_store_the_same(
    store: ResultsStore, files: dict[str, Path], tmp_path: Path
) -> None:
    first = store.ingest(
        files["small"], model="m", task="t", cluster_column="subject", where={"subject": "s1"}
    )
    read = ReadOptions(cluster_column="subject", where=(("subject", "s1"),))
    again = store.ingest(files["small"], model="m", task="t", read=read)
    assert first.sources[0].status == "ingested"
    assert again.sources[0].status == "skipped"  # the same content read the same way
    long = tmp_path / "long.csv"
    rows = [f"{m},q{i},{int((i + j) % 3 == 0)}" for j, m in enumerate(MODELS) for i in range(9)]
    long.write_text("who,id,correct\n" + "\n".join(rows) + "\n", encoding="utf-8")
    store.ingest(long, model_column="who", task="arith", read=ReadOptions(id_column="id"))
    _assert_same_scores(
        store.model_scores("arith"), load_models(long, model_column="who", id_column="id")
    )
    stored = [row[0] for row in store._db.execute("SELECT ingest_options FROM sources").fetchall()]
    assert stored == [  # as stores already hold them, so that they keep skipping their files
        '{"answer_column":null,"cluster_column":"subject","filter":null,"format":"auto",'
        '"id_column":null,"ingest_task":"t","key_column":null,"metric":null,"model":"m",'
        '"model_column":null,"models_by_task":false,"prediction_column":null,"run_column":null,'
        '"run_label":null,"score_column":null,"separator":null,"skip_bad_lines":false,'
        '"split":null,"task":null,"task_column":null,"where":[["subject","s1"]]}',
        '{"answer_column":null,"cluster_column":null,"filter":null,"format":"auto",'
        '"id_column":"id","ingest_task":"arith","key_column":null,"metric":null,"model":null,'
        '"model_column":"who","models_by_task":false,"prediction_column":null,"run_column":null,'
        '"run_label":null,"score_column":null,"separator":null,"skip_bad_lines":false,'
        '"split":null,"task":null,"task_column":"who","where":[]}',
    ]
    with pytest.raises(TypeError, match="`where` is given twice"):
        store.ingest(files["small"], model="m", task="t", read=read, where={"subject": "s0"})


# --- real harness outputs -----------------------------------------------------------------


@pytest.fixture
def fixtures(shared_data: Path) -> Path:
    return shared_data / "harness_fixtures"


@pytest.mark.shared_data
def test_harness_outputs_name_their_models(store: ResultsStore, fixtures: Path) -> None:
    eee = fixtures / "every_eval_ever/tests/data"
    lm_eval = store.ingest(eee / "lm_eval").sources[0]
    assert lm_eval.models == (
        "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1",
    )
    assert lm_eval.model_origins[0].endswith(
        "from 'model_name' in results_2026-01-21T03-44-18.458309.json"
    )
    helm = store.ingest(eee / "helm").sources[0]
    assert helm.models == ("eleutherai/pythia-1b-v0", "openai/gpt2")
    assert store.models("narrative_qa") == ("openai/gpt2",)
    inspect = store.ingest(sorted((eee / "inspect").glob("data_arc_*.json"))).sources
    assert [s.models for s in inspect] == [
        ("ollama/qwen2.5:0.5b",),
        ("anthropic/claude-sonnet-4-0",),
    ]
    assert inspect[0].model_origins == (
        "model 'ollama/qwen2.5:0.5b' from eval.model in the log header",
    )
    direct = {
        "ollama/qwen2.5:0.5b": load(eee / "inspect/data_arc_qwen.json"),
        "anthropic/claude-sonnet-4-0": load(eee / "inspect/data_arc_sonnet.json"),
    }
    _assert_same_scores(
        store.model_scores("inspect_evals/arc_easy", on_missing="intersect"),
        model_scores(direct, on_missing="intersect"),
    )
    lm_table = store.table(lm_eval.models[0], "math_perturbed_full")
    _assert_same_tables(lm_table, load(eee / "lm_eval", metric="exact_match", filter="none"))


@pytest.mark.shared_data
def test_helm_runs_store_every_metric(store: ResultsStore, fixtures: Path) -> None:
    run = "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
    path = fixtures / "every_eval_ever/tests/data/helm" / run
    store.ingest(path)
    task = "mmlu:subject=philosophy,method=multiple_choice_joint"
    with pytest.raises(DataError, match="several metrics"):
        store.table("openai/gpt2", task)
    table = store.table("openai/gpt2", task, metric="exact_match")
    _assert_same_tables(table, load(path, metric="exact_match"))


@pytest.mark.shared_data
def test_given_model_wins_and_the_metadata_is_reported(store: ResultsStore, fixtures: Path) -> None:
    log = fixtures / "every_eval_ever/tests/data/inspect/data_arc_qwen.json"
    source = store.ingest(log, model="qwen-small").sources[0]
    assert source.models == ("qwen-small",)
    assert source.model_origins == (
        "model 'qwen-small' given (model=, --model); the file's metadata names "
        "'ollama/qwen2.5:0.5b' (eval.model in the log header)",
    )


@pytest.mark.shared_data
def test_one_log_in_two_formats_is_a_conflict(store: ResultsStore, fixtures: Path) -> None:
    folder = fixtures / "inspect_ai/tests/log/test_eval_log"
    store.ingest(folder / "log_formats.eval")
    with pytest.raises(DataError) as info:
        store.ingest(folder / "log_formats.json")
    assert f"{folder / 'log_formats.json'}: scores for the same model" in str(info.value)
    assert f"already stored from {folder / 'log_formats.eval'}" in str(info.value)


@pytest.mark.shared_data
def test_a_model_column_is_for_long_tables_only(store: ResultsStore, fixtures: Path) -> None:
    log = fixtures / "every_eval_ever/tests/data/inspect/data_arc_qwen.json"
    with pytest.raises(DataError, match="inspect files have no model column"):
        store.ingest(log, model_column="model", task="arc")


@pytest.mark.slow
@pytest.mark.shared_data
def test_mmlu_pro_long_table_round_trip(store: ResultsStore, shared_data: Path) -> None:
    path = shared_data / "mmlu_pro/mmlu_pro_long.csv.gz"
    columns = {"id_column": "question_id", "score_column": "correct", "cluster_column": "category"}
    report = store.ingest(
        path, model_column="model", task="mmlu_pro", key_column="answer", **columns
    )
    assert report.n_rows == 347_215
    with pytest.raises(AlignmentError, match="3 of 29 models lack some of the 12032 items"):
        store.model_scores("mmlu_pro")
    with pytest.raises(AlignmentError, match=r"32 item\(s\) have a different content key"):
        store.model_scores("mmlu_pro", on_missing="intersect")  # the stored keys are checked
    policy = {"on_missing": "intersect", "on_mismatch": "exclude"}
    scores = store.model_scores("mmlu_pro", **policy)  # type: ignore[arg-type]
    assert scores.scores.shape == (29, 10_294)
    assert (
        dict(zip(scores.names, scores.input_counts.tolist(), strict=True))[
            "DeepSeek-Coder-V2_5shots"
        ]
        == 10_351
    )
    direct = load_models(
        path,
        model_column="model",
        key_column="answer",
        **columns,
        **policy,  # type: ignore[arg-type]
    )
    _assert_same_scores(scores, direct)
    keyed = store.table("Meta-Llama-3_1-8B-Instruct_5shots", "mmlu_pro")
    assert keyed.keys is not None
    assert len(keyed.keys) == 12_032
    assert keyed.mean == pytest.approx(0.4419, abs=5e-5)  # the published accuracy
