"""lighteval details in each layout it has written, its results file, content keys."""

from __future__ import annotations

from pathlib import Path

import pytest

import evalsig
from evalsig.data import describe, load
from evalsig.data.readers.lighteval import _metrics_from_text
from evalsig.errors import AlignmentError, FormatError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

FIXTURES = Path(__file__).parent / "fixtures" / "lighteval"
LAYOUTS = {
    "v0.4-v0.7": "lighteval v0.4-v0.7 (values stored as text)",
    "v0.8-v0.10": "lighteval v0.8-v0.10 (flat columns)",
    "v0.11": "lighteval v0.11 or later (doc / metric / model_response structs)",
}


def _details(layout: str) -> Path:
    return next((FIXTURES / layout / "details").rglob("details_*.parquet"))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_layout_reads_the_same_scores(layout: str) -> None:
    path = _details(layout)
    described = describe(path)
    assert described.layouts == (LAYOUTS[layout],)
    assert [(t.name, t.n_items, t.metrics) for t in described.tasks] == [
        ("lighteval|gsm8k|5", 4, ("maj@8", "qem"))
    ]
    table = load(path, metric="qem")
    assert table.sums.tolist() == [1.0, 0.0, 1.0, 1.0]


def test_versions_pair_by_position_checked_by_the_query_hash(tmp_path: Path) -> None:
    old, new = load(_details("v0.4-v0.7"), metric="qem"), load(_details("v0.11"), metric="qem")
    assert evalsig.compare(old, new).n_items == 4
    rows = pq.read_table(_details("v0.11")).to_pylist()
    rows[0], rows[1] = rows[1], rows[0]  # another order: position 0 now holds another query
    for row in rows:
        row["doc"]["id"] = ""
    shuffled = tmp_path / "details_lighteval|gsm8k|5_2025-10-02T00-00-00.000000.parquet"
    pq.write_table(pa.Table.from_pylist(rows), shuffled)
    with pytest.raises(AlignmentError, match="2 item\\(s\\) have a different content key"):
        evalsig.compare(old, load(shuffled, metric="qem"))


def test_the_results_file_is_named_and_refused() -> None:
    path = next((FIXTURES / "v0.11" / "results").rglob("results_*.json"))
    with pytest.raises(FormatError, match="a lighteval results file holds aggregate scores"):
        load(path)


def test_metrics_stored_as_text_are_parsed_never_evaluated() -> None:
    assert _metrics_from_text("{'qem': 1.0, 'acc': 0, 'f1': np.float64(0.5)}") == {
        "qem": 1.0,
        "acc": 0.0,
        "f1": 0.5,
    }
    assert _metrics_from_text("{'ok': True}") == {"ok": 1.0}
    assert _metrics_from_text("__import__('os').system('true')") is None
    assert _metrics_from_text("{__import__('os')}") is None


def test_a_details_folder_is_read_and_compared_through_the_cli() -> None:
    from typer.testing import CliRunner

    from evalsig.cli import app

    old, new = FIXTURES / "v0.4-v0.7" / "details", FIXTURES / "v0.11"
    assert describe(old).layouts == (LAYOUTS["v0.4-v0.7"],)
    result = CliRunner().invoke(app, ["compare", str(old), str(new), "--metric", "qem"])
    assert result.exit_code == 0, result.output
    assert "n = 4 items" in result.stdout
