"""Provenance: every result records what it compared (files and hashes, models, choices)."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app
from evalsig.data import load
from evalsig.data.provenance import Origin, file_record, sha256_of
from evalsig.data.readers import ReadOptions, collect_files, read_tables
from evalsig.leaderboard import leaderboard
from evalsig.release import gate
from evalsig.report.comparison import as_markdown, as_text
from evalsig.report.html import fragment, page

LM_EVAL = Path(__file__).parent / "data" / "fixtures" / "lm_eval" / "v0.4.7"
PYTHIA = LM_EVAL / "EleutherAI__pythia-160m"
HOSTILE = "<script>alert(1)</script>"
runner = CliRunner()


def _csv(path: Path, scores: list[int], *, model: str | None = None) -> Path:
    header = "item,score" + (",model" if model else "")
    rows = [f"q{i},{s}" + (f",{model}" if model else "") for i, s in enumerate(scores)]
    path.write_text("\n".join([header, *rows]) + "\n", "utf-8")
    return path


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    base = rng.integers(0, 2, 60).tolist()
    return _csv(tmp_path / "base.csv", base), _csv(tmp_path / "tuned.csv", [1, *base[1:]])


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_hashes_equal_hashlib_and_follow_the_file(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    data = np.random.default_rng(1).bytes(3 * (1 << 20) + 17)  # several chunks and a tail
    path.write_bytes(data)
    assert sha256_of(path) == hashlib.sha256(data).hexdigest()
    record = file_record(path)
    assert (record.size, record.sha256, record.path) == (len(data), _sha(path), str(path))
    path.write_bytes(data[:-1])  # another size: hashed again, not taken from the cache
    assert sha256_of(path) == hashlib.sha256(data[:-1]).hexdigest()


def test_a_large_file_is_hashed_in_the_background_while_read(tmp_path: Path) -> None:
    import evalsig.data.provenance as module

    path = tmp_path / "scores.csv"
    rows = "".join(f"q{i},{i % 2}\n" for i in range(module.PREFETCH_FROM // 6))
    path.write_text("item,score\n" + rows)
    assert path.stat().st_size >= module.PREFETCH_FROM
    table = load(path)
    assert table.origin is not None
    (record,) = table.origin.files
    assert record.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert not any(key[0] == os.path.abspath(path) for key in module._PENDING)  # collected
    small = _csv(tmp_path / "small.csv", [1, 0, 1])
    module.prefetch_hashes([small, tmp_path / "absent.csv", tmp_path])  # small, absent, folder
    assert not any(key[0] == os.path.abspath(small) for key in module._PENDING)


def test_a_file_read_twice_is_hashed_once(tmp_path: Path, monkeypatch: object) -> None:
    path = _csv(tmp_path / "a.csv", [1, 0, 1])
    first = sha256_of(path)
    opened: list[object] = []
    real_open = open

    def counting_open(file: object, *args: object, **kwargs: object) -> object:
        opened.append(file)
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    import evalsig.data.provenance as module

    monkeypatch.setattr(module, "open", counting_open, raising=False)  # type: ignore[attr-defined]
    assert sha256_of(path) == first
    assert opened == []
    os.utime(path, ns=(1, 1))  # another modification time: read again
    assert sha256_of(path) == first
    assert opened == [path]


def test_origin_of_a_csv(tmp_path: Path) -> None:
    path = _csv(tmp_path / "model-a.csv", [1, 0, 1])
    origin = load(path).origin
    assert origin is not None
    assert origin.files[0].sha256 == _sha(path)
    assert (origin.format, origin.model, origin.model_from) == ("csv", "model-a", "file name")
    assert (origin.task, origin.metric, origin.filter, origin.where) == (None, "score", None, ())


def test_origin_of_a_long_table_chosen_with_where(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_text("item,model,score\nq1,a,1\nq2,a,0\nq1,b,1\nq2,b,1\n", "utf-8")
    for options in (ReadOptions(where=(("model", "b"),)),):
        fast = read_tables(path, options)[""]
        slow = collect_files(path, options).tables()[""]
        for table in (fast, slow):
            assert table.origin is not None
            assert (table.origin.model, table.origin.model_from) == ("b", "--where model=")
            assert table.origin.where == (("model", "b"),)
        assert fast.origin == slow.origin


def test_origin_of_an_lm_eval_folder_names_the_model_from_its_results() -> None:
    table = load(PYTHIA, task="gsm8k", filter="strict-match")
    origin = table.origin
    assert origin is not None
    assert (origin.model, origin.model_from) == ("EleutherAI/pythia-160m", "harness metadata")
    assert (origin.format, origin.layout) == ("lm-eval", "v0.4.7 or later")
    assert (origin.task, origin.metric, origin.filter) == ("gsm8k", "exact_match", "strict-match")
    [record] = origin.files
    assert Path(record.path).name.startswith("samples_gsm8k_")
    assert record.sha256 == _sha(Path(record.path))
    rows = collect_files(PYTHIA, ReadOptions(task="gsm8k", filter="strict-match")).tables()
    assert rows["gsm8k"].origin == origin  # the columnar path and the rows agree


def test_origin_of_an_inspect_log(tmp_path: Path) -> None:
    header = {
        "version": 2,
        "status": "success",
        "eval": {"task": "demo", "model": "openai/gpt-4o", "config": {"epochs": 1}},
        "plan": {"steps": []},
        "results": {"total_samples": 2, "scores": [{"name": "match"}]},
        "stats": {},
    }
    samples = [
        {
            "id": i,
            "epoch": 1,
            "input": "q",
            "target": "A",
            "messages": [],
            "output": {"completion": "A"},
            "scores": {"match": {"value": "C" if i else "I", "answer": "A"}},
            "metadata": {},
        }
        for i in range(2)
    ]
    path = tmp_path / "run.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {}}))
        for sample in samples:
            archive.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))
        archive.writestr("summaries.json", "[]")
        archive.writestr("header.json", json.dumps(header))
    origin = load(path).origin
    assert origin is not None
    assert (origin.model, origin.model_from, origin.format) == (
        "openai/gpt-4o",
        "harness metadata",
        "inspect",
    )
    assert origin.files[0].sha256 == _sha(path)
    assert origin.layout is not None
    assert "log format 2" in origin.layout


def test_origin_of_data_passed_in_python() -> None:
    assert load([1, 0, 1]).origin == Origin(format="array")
    assert load({"q1": 1}, name="gpt-x").origin == Origin(
        format="mapping", model="gpt-x", model_from="given"
    )
    frame = pd.DataFrame({"item": ["a", "b"], "score": [1, 0], "model": ["m", "m"]})
    origin = load(frame, where={"model": "m"}).origin
    assert origin is not None
    assert not origin.files
    assert (origin.format, origin.model, origin.model_from) == ("dataframe", "m", "--where model=")


def test_compare_json_carries_both_origins_seed_and_version(tmp_path: Path) -> None:
    base, tuned = _pair(tmp_path)
    result = evalsig.compare(base, tuned, method="bootstrap", n_resamples=200, rng=5)
    document = result.to_dict()["provenance"]
    assert document["seed"] == 5 == result.seed
    assert document["evalsig_version"] == evalsig.__version__
    assert document["created"].endswith("Z")
    inputs = document["inputs"]
    assert inputs["baseline"]["files"][0]["sha256"] == _sha(base)
    assert inputs["candidate"]["files"][0]["sha256"] == _sha(tuned)
    assert (inputs["baseline"]["model"], inputs["candidate"]["model"]) == ("base", "tuned")


def test_identical_runs_differ_only_in_the_time(tmp_path: Path) -> None:
    base, tuned = _pair(tmp_path)
    first, second = (evalsig.compare(base, tuned).to_dict() for _ in range(2))
    for document in (first, second):
        del document["provenance"]["created"]
    assert first == second


def test_leaderboard_and_gate_json_carry_the_origins(tmp_path: Path) -> None:
    paths = {m: _csv(tmp_path / f"{m}.csv", [1, 0, 1, 1, 0, 1][k:] + [1] * k) for k, m in
             enumerate(("a", "b", "c"))}  # fmt: skip
    board = leaderboard({m: str(p) for m, p in paths.items()}).to_dict()["provenance"]
    assert {m: board["inputs"][m]["files"][0]["sha256"] for m in paths} == {
        m: _sha(p) for m, p in paths.items()
    }
    long = tmp_path / "long.csv"
    long.write_text("item,model,score\nq1,x,1\nq2,x,0\nq1,y,1\nq2,y,1\nq1,z,0\nq2,z,0\n")
    models = leaderboard(str(long)).to_dict()["provenance"]["inputs"]
    assert {m: (o["model"], o["model_from"]) for m, o in models.items()} == {
        m: (m, "model column") for m in "xyz"
    }
    policy = tmp_path / "policy.json"
    policy.write_text('{"name": "g", "tasks": ["t"]}', "utf-8")
    base, tuned = _pair(tmp_path)
    result = gate({"t": str(base)}, {"t": str(tuned)}, policy=policy).to_dict()
    document = result["provenance"]
    assert document["files"]["policy"]["sha256"] == _sha(policy)
    assert document["inputs"]["t baseline"]["files"][0]["sha256"] == _sha(base)
    assert document["inputs"]["t candidate"]["files"][0]["sha256"] == _sha(tuned)
    assert result["tasks"][0]["comparison"]["provenance"]["inputs"]["baseline"]["model"] == "base"


def test_cli_json_has_both_files_hashes(tmp_path: Path) -> None:
    base, tuned = _pair(tmp_path)
    result = runner.invoke(app, ["compare", str(base), str(tuned), "--format", "json"])
    assert result.exit_code == 0, result.output
    inputs = json.loads(result.stdout)["provenance"]["inputs"]
    assert inputs["baseline"]["files"][0] == {
        "path": str(base),
        "size": base.stat().st_size,
        "sha256": _sha(base),
    }
    assert inputs["candidate"]["files"][0]["sha256"] == _sha(tuned)


def test_reports_name_the_models_and_files(tmp_path: Path) -> None:
    base, tuned = _pair(tmp_path)
    document = evalsig.compare(base, tuned).to_dict()
    markdown = as_markdown(document)
    assert markdown.startswith("### tuned vs base\n")
    assert f"base.csv@{_sha(base)[:12]}" in markdown
    assert f"tuned.csv@{_sha(tuned)[:12]}" in markdown
    assert as_markdown(document, title="Mine").startswith("### Mine\n")
    text = as_text(document)
    assert f"compared   baseline base (base.csv@{_sha(base)[:12]})" in text
    html = fragment(document)
    assert "<h2>tuned vs base</h2>" in html
    assert f"tuned.csv@{_sha(tuned)[:12]}" in html


def test_html_and_markdown_escape_a_hostile_model_name() -> None:
    document = evalsig.compare(
        load([1, 0, 1, 1], name=HOSTILE), load([1, 1, 1, 1], name="ok")
    ).to_dict()
    assert document["provenance"]["inputs"]["baseline"]["model"] == HOSTILE
    for html in (fragment(document), page([document])):
        assert HOSTILE not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert HOSTILE not in as_markdown(document)


def test_the_demo_report_titles_its_two_sections_apart(tmp_path: Path) -> None:
    result = runner.invoke(app, ["demo", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "report.html").read_text("utf-8")
    assert "<h2>finetune-a vs base</h2>" in html
    assert "<h2>finetune-b vs base</h2>" in html
    assert "Paired comparison" not in html


def test_claim_audit_and_meta_synthesis_carry_provenance(tmp_path: Path) -> None:
    from evalsig.audit import audit_claim
    from evalsig.meta import synthesize

    base, tuned = _pair(tmp_path)
    claim = audit_claim(base, tuned, half_width=0.05).to_dict()["provenance"]
    assert claim["inputs"]["candidate"]["files"][0]["sha256"] == _sha(tuned)
    reports = tmp_path / "reports.csv"
    rows = [f"m,b,paper {k},{0.6 + 0.01 * k},1000" for k in range(3)]
    reports.write_text("\n".join(["model,benchmark,source,score,n", *rows]) + "\n", "utf-8")
    meta = synthesize(str(reports), n_resamples=0).to_dict()["provenance"]
    assert meta["files"]["reports"]["sha256"] == _sha(reports)
    assert synthesize(reports, n_resamples=0).to_dict()["provenance"]["files"]["reports"]


# --- results that read files: power, resolution, monitor, audit, simulate ------------------


def _long(path: Path, scores: dict[str, list[int]]) -> Path:
    rows = [f"{m},q{i},{s}" for m, values in scores.items() for i, s in enumerate(values)]
    path.write_text("\n".join(["model,item,score", *rows]) + "\n", "utf-8")
    return path


def _runs(path: Path, n_items: int = 200, n_runs: int = 4) -> Path:
    from evalsig.simulate import simulate_benchmark

    runs = simulate_benchmark(n_items=n_items, n_runs=n_runs, rng=0).baseline
    rows = [f"q{i},{r},{int(v)}" for r, row in enumerate(runs) for i, v in enumerate(row)]
    path.write_text("\n".join(["item,run,correct", *rows]) + "\n", "utf-8")
    return path


def _pilot(tmp_path: Path) -> tuple[Path, Path]:
    """Two files that differ: the tuned model fixes 8 of the base's wrong answers."""
    base = np.random.default_rng(7).integers(0, 2, 80).tolist()
    fixed = [1 if i < 20 and not s else s for i, s in enumerate(base)]
    return _csv(tmp_path / "base.csv", base), _csv(tmp_path / "tuned.csv", fixed)


def test_power_and_resolution_from_pilot_files_name_them(tmp_path: Path) -> None:
    from evalsig.data import pair
    from evalsig.power import power_analysis, power_analysis_paired, resolution

    base, tuned = _pilot(tmp_path)
    assert _sha(base) != _sha(tuned)
    analysis = power_analysis_paired(pair(load(base), load(tuned))).to_dict()["provenance"]
    assert analysis["inputs"]["baseline"]["files"][0]["sha256"] == _sha(base)
    assert analysis["inputs"]["candidate"]["files"][0]["sha256"] == _sha(tuned)
    assert analysis["evalsig_version"] == evalsig.__version__
    ratio = resolution(str(base), str(tuned)).to_dict()["provenance"]["inputs"]
    assert (ratio["baseline"]["model"], ratio["candidate"]["files"][0]["sha256"]) == (
        "base",
        _sha(tuned),
    )
    rates = power_analysis(p01=0.075, p10=0.065, n=4000)
    assert rates.to_dict()["provenance"]["inputs"] == {}  # given rates: no file
    assert "compared: no input files; evalsig " in str(rates)
    result = runner.invoke(app, ["power", str(base), str(tuned)])
    assert result.exit_code == 0, result.output
    assert f"compared: baseline base (base.csv@{_sha(base)[:12]})" in result.stdout
    markdown = runner.invoke(app, ["power", str(base), str(tuned), "--format", "markdown"])
    assert f"- compared: baseline base (base.csv@{_sha(base)[:12]}); candidate tuned" in (
        markdown.stdout
    )


def test_benchmark_resolution_names_each_models_file(tmp_path: Path) -> None:
    board = _long(tmp_path / "board.csv", {m: [1, 0, 1, 1, 0, k % 2] * 10 for k, m in
                                           enumerate("xyz")})  # fmt: skip
    result = runner.invoke(
        app, ["resolution", str(board), "--format", "json", "--pairs", "all", "--seed", "2"]
    )
    assert result.exit_code == 0, result.output
    inputs = json.loads(result.stdout)["provenance"]["inputs"]
    assert {m: (o["model"], o["files"][0]["sha256"]) for m, o in inputs.items()} == {
        m: (m, _sha(board)) for m in "xyz"
    }
    text = runner.invoke(app, ["resolution", str(board)]).stdout
    assert f"compared: x (board.csv@{_sha(board)[:12]})" in text


def test_the_monitor_records_the_file_and_the_lines_it_monitored(tmp_path: Path) -> None:
    stream = tmp_path / "stream.csv"
    rows = "".join(f"{(i // 3) % 2},{1 if i % 5 else 0}\n" for i in range(600))
    stream.write_text("\ufeffbaseline,candidate\n" + rows, "utf-8")  # a byte order mark too
    result = runner.invoke(app, ["monitor", str(stream), "--format", "json", "--batch", "100"])
    assert result.exit_code in (0, 1, 3), result.output
    document = json.loads(result.stdout)
    inputs = document["provenance"]["inputs"]
    assert {label: o["metric"] for label, o in inputs.items()} == {
        "baseline": "baseline",
        "candidate": "candidate",
    }
    assert inputs["baseline"]["files"] == [
        {"path": str(stream), "size": stream.stat().st_size, "sha256": _sha(stream)}
    ]
    text = runner.invoke(app, ["monitor", str(stream), "--batch", "100"]).stdout
    assert f"compared             baseline (stream.csv@{_sha(stream)[:12]}, metric " in text


def test_a_stopped_monitor_records_the_lines_up_to_the_stop(tmp_path: Path) -> None:
    stream = tmp_path / "stream.jsonl"
    lines = [json.dumps({"difference": 1 if i % 4 else 0}) + "\n" for i in range(2000)]
    stream.write_text("".join(lines), "utf-8")
    result = runner.invoke(
        app, ["monitor", str(stream), "--format", "json", "--batch", "50", "--stop"]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    n = document["n"]
    assert n < 2000
    read = "".join(lines[:n]).encode("utf-8")
    (record,) = document["provenance"]["inputs"]["differences"]["files"]
    assert (record["size"], record["sha256"]) == (len(read), hashlib.sha256(read).hexdigest())
    assert any("where monitoring stopped" in note for note in document["notes"])


def test_sequences_of_the_python_api_carry_version_and_time() -> None:
    from evalsig.sequential import confidence_sequence

    document = confidence_sequence([0, 1, 0, 0, 1] * 40).to_dict()["provenance"]
    assert (document["inputs"], document["files"]) == ({}, {})
    assert document["evalsig_version"] == evalsig.__version__
    assert document["created"].endswith("Z")


def test_audit_and_simulation_of_a_fitted_design_name_the_runs(tmp_path: Path) -> None:
    from evalsig.audit import audit
    from evalsig.simulate import MixtureDesign, fit_design, simulation_report

    runs = _runs(tmp_path / "runs.csv")
    design = fit_design(str(runs), n_items=100)
    audited = audit(design, methods=["paired-t"], n_simulations=5, rng=4).to_dict()
    (record,) = audited["provenance"]["inputs"]["fitted to"]["files"]
    assert (record["sha256"], audited["provenance"]["seed"]) == (_sha(runs), 4)
    report = simulation_report(design, rng=6, n_simulations=0).to_dict()["provenance"]
    assert report["inputs"]["fitted to"]["files"][0]["sha256"] == _sha(runs)
    assert report["seed"] == 6
    mixture = audit(MixtureDesign(n_items=100, n_runs=2), methods=["paired-t"],
                    n_simulations=5, rng=4)  # fmt: skip
    assert mixture.to_dict()["provenance"]["inputs"] == {}
    assert "compared: no input files; seed 4; evalsig " in str(mixture)
    result = runner.invoke(app, ["simulate", "--fit", str(runs), "--simulations", "0"])
    assert result.exit_code == 0, result.output
    assert f"compared: fitted to runs (runs.csv@{_sha(runs)[:12]})" in result.stdout


def test_multiplicity_and_simultaneous_results_carry_seed_version_and_time() -> None:
    from evalsig.inference import adjust, romano_wolf

    corrected = adjust({"a": 0.01, "b": 0.04}, method="holm")
    document = corrected.to_dict()["provenance"]
    assert (document["inputs"], document["seed"]) == ({}, None)
    assert document["evalsig_version"] == evalsig.__version__
    # values passed in Python: no line of "no input files" and a time under each table
    assert "compared:" not in str(corrected)
    assert "compared:" not in corrected._repr_markdown_()
    rng = np.random.default_rng(3)
    joint = romano_wolf({t: rng.normal(0.1, 1, 40) for t in "ab"}, n_resamples=200, rng=9)
    assert joint.to_dict()["provenance"]["seed"] == 9
    assert "compared:" not in str(joint)
    assert "seed 9" in str(joint)
    html = fragment(joint.to_dict())
    assert "<strong>Compared:</strong> no input files; seed 9" in html


def test_html_reports_show_the_compared_line_of_the_new_kinds(tmp_path: Path) -> None:
    from evalsig.data import pair
    from evalsig.power import power_analysis_paired

    base, tuned = _pilot(tmp_path)
    document = power_analysis_paired(pair(load(base), load(tuned))).to_dict()
    assert f"tuned.csv@{_sha(tuned)[:12]}" in fragment(document)


# --- model names from harness metadata: lighteval, promptfoo -------------------------------

LIGHTEVAL = Path(__file__).parent / "data" / "fixtures" / "lighteval"
PROMPTFOO = Path(__file__).parent / "data" / "fixtures" / "promptfoo"


def _details(layout: str, root: Path = LIGHTEVAL) -> Path:
    return next((root / layout / "details").rglob("details_*.parquet"))


def test_lighteval_details_name_their_model() -> None:
    pytest.importorskip("pyarrow")
    for layout in ("v0.4-v0.7", "v0.8-v0.10", "v0.11"):
        origin = load(_details(layout), metric="qem").origin
        assert origin is not None
        assert (origin.model, origin.model_from) == ("EleutherAI/pythia-160m", "harness metadata")
    folder = load(LIGHTEVAL / "v0.11", metric="qem").origin
    assert folder is not None
    assert folder.model == "EleutherAI/pythia-160m"


def test_lighteval_model_comes_from_the_results_file_of_the_run(tmp_path: Path) -> None:
    import shutil

    pytest.importorskip("pyarrow")
    copy = tmp_path / "out"
    shutil.copytree(LIGHTEVAL / "v0.11", copy)
    results = next((copy / "results").rglob("results_*.json"))
    summary = json.loads(results.read_text("utf-8"))
    summary["config_general"]["model_name"] = "org/renamed-in-config"
    results.write_text(json.dumps(summary), "utf-8")
    origin = load(_details("", copy), metric="qem").origin
    assert origin is not None
    assert origin.model == "org/renamed-in-config"  # the run's metadata, not the folder
    results.write_text("{not json", "utf-8")
    table = load(_details("", copy), metric="qem")
    assert table.origin is not None
    assert table.origin.model == "EleutherAI/pythia-160m"  # the folder lighteval named
    assert any("not read for the model's name" in note for note in table.notes)
    alone = tmp_path / _details("v0.11").name
    shutil.copy(_details("v0.11"), alone)  # outside lighteval's layout: no model
    origin = load(alone, metric="qem").origin
    assert origin is not None
    assert origin.model_from == "file name"


def test_promptfoo_files_name_the_chosen_provider() -> None:
    for name in ("v2_two_providers_repeat2.json", "v3_two_providers_repeat2.json",
                 "v3_two_providers_repeat2.jsonl"):  # fmt: skip
        origin = load(PROMPTFOO / name, where={"provider": "model-b"}).origin
        assert origin is not None
        assert (origin.model, origin.model_from) == ("model-b", "harness metadata")
        assert origin.where == (("provider", "model-b"),)
    flaky = load(PROMPTFOO / "v2_errors_two_prompts.json", where={"prompt": "short"}).origin
    assert flaky is not None
    assert flaky.model == "flaky-model"  # the label of the config (0.91.3)
    result = evalsig.compare(
        load(PROMPTFOO / "v3_two_providers_repeat2.json", where={"provider": "model-a"}),
        load(PROMPTFOO / "v3_two_providers_repeat2.json", where={"provider": "model-b"}),
    )
    assert as_markdown(result.to_dict()).startswith("### model-b vs model-a\n")
