"""Item ids written as numbers on one side and as text on the other (JSON 1 and "1").

Ids are matched by their text, so such files pair; every command that pairs two inputs
says so in a note naming both inputs and an id both have, and an alignment error says the
kinds differ. A CSV cell has no type: CSV ids are neither numbers nor text, so CSV beside
JSON (or another CSV) gives no such note; nor do the keys of a JSON object {item_id: score},
which are text whatever the writer held.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import evalsig
from evalsig.cli import app
from evalsig.data import load, pair
from evalsig.errors import AlignmentError

runner = CliRunner()

NOTE = "item ids are numbers in"
N = 40


def _scores(shift: int) -> list[int]:
    return [int((i + shift) % 3 == 0) for i in range(N)]


def _long_jsonl(path: Path, ids: Callable[[int], object], shift: int = 0) -> Path:
    """A plain long JSON Lines table (`doc_id`, `score`), as read by the jsonl reader."""
    rows = [{"doc_id": ids(i), "score": s} for i, s in enumerate(_scores(shift))]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _samples(folder: Path, ids: Callable[[int], object], shift: int = 0) -> Path:
    """An lm-evaluation-harness samples file of task 'arc' (doc_id, doc_hash, acc)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "samples_arc_2026-01-01T00-00-00.000000.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i, s in enumerate(_scores(shift)):
            record = {
                "doc_id": ids(i),
                "filter": "none",
                "metrics": ["acc"],
                "doc_hash": f"arc{i}",
                "acc": float(s),
            }
            f.write(json.dumps(record) + "\n")
    return path


def _csv(path: Path, shift: int = 0) -> Path:
    lines = ["doc_id,score", *(f"{i},{s}" for i, s in enumerate(_scores(shift)))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(params=["rows", "columns"])
def reading(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each file read record by record, or column by column (pyarrow), whatever its size."""
    import evalsig.data.readers as readers

    if request.param == "rows":
        monkeypatch.setattr(readers, "read_columnar", lambda *args: None)
        monkeypatch.setattr(readers, "read_lm_eval_columnar", lambda *args: None)
    else:
        pytest.importorskip("pyarrow")
        monkeypatch.setattr(readers, "_worth_columns", lambda *args: True)
    return request.param


def _kind_notes(notes: tuple[str, ...] | list[str]) -> list[str]:
    return [n for n in notes if NOTE in n]


# --- the Python API ---------------------------------------------------------------------------


def test_long_jsonl_numbers_and_text_pair_with_a_note(tmp_path: Path, reading: str) -> None:
    numbers = _long_jsonl(tmp_path / "a.jsonl", int)
    texts = _long_jsonl(tmp_path / "b.jsonl", str, shift=1)
    result = evalsig.compare(numbers, texts)
    assert result.n_items == N  # paired, not refused: the ids are one set of items
    assert _kind_notes(result.notes) == [
        f'item ids are numbers in {numbers} and text in {texts} (e.g. 0 and "0"): paired '
        "as text; check that they name the same items."
    ]


def test_the_note_names_the_side_whose_ids_are_numbers(tmp_path: Path, reading: str) -> None:
    texts = _long_jsonl(tmp_path / "a.jsonl", str)
    numbers = _long_jsonl(tmp_path / "b.jsonl", int, shift=1)
    (note,) = _kind_notes(evalsig.compare(texts, numbers).notes)
    assert note.startswith(
        f'item ids are numbers in {numbers} and text in {texts} (e.g. 0 and "0")'
    )


def test_lm_eval_samples_numbers_and_text(tmp_path: Path, reading: str) -> None:
    numbers = _samples(tmp_path / "old", int)
    texts = _samples(tmp_path / "new", str, shift=1)
    result = evalsig.compare(numbers, texts)
    assert result.n_items == N
    (note,) = _kind_notes(result.notes)
    assert f"numbers in {numbers} (task 'arc') and text in {texts} (task 'arc')" in note
    assert '(e.g. 0 and "0")' in note


def test_the_tables_carry_the_kind_each_reader_saw(tmp_path: Path, reading: str) -> None:
    assert load(_long_jsonl(tmp_path / "a.jsonl", int)).id_kind == "number"
    assert load(_long_jsonl(tmp_path / "b.jsonl", str)).id_kind == "text"
    assert load(_samples(tmp_path / "lm", int)).id_kind == "number"
    assert load(_csv(tmp_path / "c.csv")).id_kind is None  # a CSV cell has no type
    mixed = _long_jsonl(tmp_path / "m.jsonl", lambda i: i if i % 2 else str(i))
    assert load(mixed, format="jsonl").id_kind is None


@pytest.mark.parametrize("json_ids", [int, str])
def test_csv_ids_are_neither_numbers_nor_text(
    tmp_path: Path, reading: str, json_ids: Callable[[int], object]
) -> None:
    """Decided: a CSV column of digits is untyped, so CSV beside JSON of either kind pairs
    without a note (the CSV says nothing about how its writer held the ids)."""
    csv, jsonl = _csv(tmp_path / "a.csv"), _long_jsonl(tmp_path / "b.jsonl", json_ids, shift=1)
    assert _kind_notes(evalsig.compare(csv, jsonl).notes) == []
    assert _kind_notes(evalsig.compare(jsonl, csv).notes) == []


def test_json_object_keys_are_neither_numbers_nor_text(tmp_path: Path, reading: str) -> None:
    mapping = tmp_path / "a.json"
    mapping.write_text(json.dumps({str(i): s for i, s in enumerate(_scores(0))}))
    assert load(mapping).id_kind is None
    numbers = _long_jsonl(tmp_path / "b.jsonl", int, shift=1)
    assert _kind_notes(evalsig.compare(mapping, numbers).notes) == []
    records = tmp_path / "c.json"  # a list of records does type its ids
    records.write_text(json.dumps([{"id": str(i), "score": 1} for i in range(N)]))
    assert len(_kind_notes(evalsig.compare(numbers, records).notes)) == 1


def test_same_kinds_give_no_note(tmp_path: Path, reading: str) -> None:
    for kind in (int, str):
        a = _long_jsonl(tmp_path / f"a{kind.__name__}.jsonl", kind)
        b = _long_jsonl(tmp_path / f"b{kind.__name__}.jsonl", kind, shift=1)
        assert _kind_notes(evalsig.compare(a, b).notes) == []
    a, b = _csv(tmp_path / "a.csv"), _csv(tmp_path / "b.csv", shift=1)
    assert _kind_notes(evalsig.compare(a, b).notes) == []


def test_csv_and_json_runs_of_one_model_give_no_within_read_note(tmp_path: Path) -> None:
    """The same decision within one read of several files: CSV does not count as text."""
    csv, numbers = _csv(tmp_path / "a.csv"), _long_jsonl(tmp_path / "b.jsonl", int)
    assert _kind_notes(load([csv, numbers]).notes) == []
    texts = _long_jsonl(tmp_path / "c.jsonl", str)
    assert len(_kind_notes(load([numbers, texts]).notes)) == 1  # JSON of both kinds: noted


def test_mappings_series_and_frames(tmp_path: Path) -> None:
    numbers = dict(enumerate(_scores(0)))
    texts = {str(i): s for i, s in enumerate(_scores(1))}
    (note,) = _kind_notes(evalsig.compare(numbers, texts).notes)
    assert note.startswith(
        'item ids are numbers in `baseline` and text in `candidate` (e.g. 0 and "0")'
    )
    assert _kind_notes(evalsig.compare(texts, dict(texts)).notes) == []
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"id": list(numbers), "score": list(numbers.values())})
    other = pd.DataFrame({"id": list(texts), "score": list(texts.values())})
    assert len(_kind_notes(evalsig.compare(frame, other).notes)) == 1
    assert _kind_notes(evalsig.compare(frame, frame).notes) == []
    series = pd.Series(list(numbers.values()), index=list(numbers))
    assert len(_kind_notes(evalsig.compare(series, texts).notes)) == 1


def test_the_note_follows_the_items_kept(tmp_path: Path) -> None:
    """With on_missing='intersect' the example is an id both sides have."""
    numbers = dict(enumerate(_scores(0)))
    texts = {str(i): s for i, s in enumerate(_scores(1)) if i >= 5}
    paired = pair(load(numbers), load(texts), on_missing="intersect")
    assert paired.n_items == N - 5
    (note,) = _kind_notes(paired.notes)
    assert '(e.g. 5 and "5")' in note


def test_ids_that_do_not_match_as_text_say_why(tmp_path: Path) -> None:
    """1.0 and "1" (or 1 and "01") are different text: an error that names the kinds, and
    does not offer on_missing='intersect' when nothing would be left to compare."""
    floats = _long_jsonl(tmp_path / "a.jsonl", float)
    texts = _long_jsonl(tmp_path / "b.jsonl", str)
    with pytest.raises(AlignmentError) as error:
        evalsig.compare(floats, texts)
    message = str(error.value)
    assert f"Item ids are numbers in {floats} and text in {texts}" in message
    assert "They share 0 item(s)" in message
    assert "on_missing='intersect'" not in message
    padded = _long_jsonl(tmp_path / "c.jsonl", lambda i: f"{i:02d}")
    with pytest.raises(AlignmentError, match=r"30 shared items.*Item ids are numbers in"):
        evalsig.compare(_long_jsonl(tmp_path / "d.jsonl", int), padded)


def test_differing_content_keys_with_different_kinds_say_so(tmp_path: Path) -> None:
    """Ids that number other questions on each side: the key error names the kinds."""
    numbers = _samples(tmp_path / "old", int)
    shifted = _samples(tmp_path / "new", str)
    text = shifted.read_text(encoding="utf-8").replace('"doc_hash": "arc', '"doc_hash": "x')
    shifted.write_text(text, encoding="utf-8")
    with pytest.raises(AlignmentError, match=r"different tasks.*Item ids are numbers in"):
        evalsig.compare(numbers, shifted)


def test_many_models_aligned_by_id(tmp_path: Path) -> None:
    from evalsig.data.models import model_scores

    tables = {
        "m1": load(dict(enumerate(_scores(0)))),
        "m2": load({str(i): s for i, s in enumerate(_scores(1))}),
        "m3": load(dict(enumerate(_scores(2)))),
    }
    (note,) = _kind_notes(model_scores(tables).notes)
    assert note.startswith("item ids are numbers in model(s) 'm1', 'm3' and text in model(s) 'm2'")
    assert "aligned as text" in note
    same = {name: t for name, t in tables.items() if name != "m2"}
    assert _kind_notes(model_scores(same).notes) == []


def test_the_columnar_readers_report_the_kind(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from evalsig.data.readers import ReadOptions
    from evalsig.data.readers.columnar import read_columnar
    from evalsig.data.readers.lm_eval_columnar import read_lm_eval_columnar

    options = ReadOptions()
    kinds = {}
    for name, path, reader in (
        ("jsonl numbers", _long_jsonl(tmp_path / "a.jsonl", int), "jsonl"),
        ("jsonl text", _long_jsonl(tmp_path / "b.jsonl", str), "jsonl"),
        ("csv", _csv(tmp_path / "c.csv"), "csv"),
    ):
        tables = read_columnar(path, reader, options)
        assert tables is not None, name  # read by this path, not handed to the row reader
        kinds[name] = next(iter(tables.values())).id_kind
    tables = read_lm_eval_columnar(_samples(tmp_path / "lm", int), options)
    assert tables is not None  # text doc_ids are the row reader's, which says 'text'
    kinds["lm-eval numbers"] = next(iter(tables.values())).id_kind
    assert kinds == {
        "jsonl numbers": "number",
        "jsonl text": "text",
        "csv": None,
        "lm-eval numbers": "number",
    }


# --- the command line -------------------------------------------------------------------------


def test_cli_compare_prints_the_note(tmp_path: Path) -> None:
    numbers = _long_jsonl(tmp_path / "a.jsonl", int)
    texts = _long_jsonl(tmp_path / "b.jsonl", str, shift=1)
    result = runner.invoke(app, ["compare", str(numbers), str(texts)])
    assert result.exit_code == 0, result.output
    notes = result.stdout.split("\n  notes\n", 1)[1]
    assert f'item ids are numbers in {numbers} and text in {texts} (e.g. 0 and "0")' in notes
    as_json = runner.invoke(app, ["compare", str(numbers), str(texts), "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    assert len(_kind_notes(json.loads(as_json.stdout)["notes"])) == 1
    same = runner.invoke(app, ["compare", str(numbers), str(numbers)])
    assert same.exit_code == 0, same.output
    assert NOTE not in same.stdout


def test_cli_compare_error_names_the_kinds(tmp_path: Path) -> None:
    floats = _long_jsonl(tmp_path / "a.jsonl", float)
    texts = _long_jsonl(tmp_path / "b.jsonl", str)
    result = runner.invoke(app, ["compare", str(floats), str(texts)])
    assert result.exit_code == 4
    assert result.stderr.startswith("evalsig: error: baseline has 40 items")
    assert "Item ids are numbers in" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_cli_gate_prints_the_note(tmp_path: Path) -> None:
    old, new = _samples(tmp_path / "old", int).parent, _samples(tmp_path / "new", str, 1).parent
    policy = tmp_path / "p.yaml"
    policy.write_text("tasks: [arc]\n", encoding="utf-8")
    result = runner.invoke(app, ["gate", "--policy", str(policy), str(old), str(new)])
    assert result.exit_code in (0, 1, 3), result.output
    assert NOTE in result.stdout
    assert '(e.g. 0 and "0")' in result.stdout
    same = runner.invoke(app, ["gate", "--policy", str(policy), str(old), str(old)])
    assert same.exit_code == 3, same.output
    assert NOTE not in same.stdout


def test_cli_power_from_a_pilot_prints_the_note(tmp_path: Path) -> None:
    numbers = _long_jsonl(tmp_path / "a.jsonl", int)
    texts = _long_jsonl(tmp_path / "b.jsonl", str, shift=1)
    result = runner.invoke(app, ["power", str(numbers), str(texts)])
    assert result.exit_code == 0, result.output
    assert f"item ids are numbers in {numbers} and text in {texts}" in result.stdout


def test_cli_leaderboard_prints_the_note(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    _long_jsonl(folder / "m1.jsonl", int)
    _long_jsonl(folder / "m2.jsonl", str, shift=1)
    _long_jsonl(folder / "m3.jsonl", int, shift=2)
    result = runner.invoke(app, ["leaderboard", str(folder)])
    assert result.exit_code == 0, result.output
    assert "item ids are numbers in model(s) 'm1', 'm3' and text in model(s) 'm2'" in result.stdout
