"""The column-by-column fast path gives the row reader's table, or steps aside.

Oracle: for generated long tables (CSV, JSON Lines, Parquet; clean and dirty), the fast
path's tables equal the row reader's in every field, or the fast path returns None and the
row reader answers (its exact error included).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalsig.data import load
from evalsig.data.readers import ReadOptions, collect_files, read_tables
from evalsig.data.readers.columnar import read_columnar
from evalsig.data.table import ScoreTable
from evalsig.errors import EvalsigError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

FORMATS = {"csv": ".csv", "jsonl": ".jsonl", "parquet": ".parquet"}


def _write(rows: list[dict[str, Any]], fmt: str, folder: Path) -> Path:
    path = folder / f"scores{FORMATS[fmt]}"
    columns = list(rows[0])
    if fmt == "csv":
        lines = [",".join(columns)]
        lines += [",".join("" if r[c] is None else str(r[c]) for c in columns) for r in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _same(fast: ScoreTable, slow: ScoreTable) -> None:
    assert fast.source == slow.source
    assert fast.notes == slow.notes
    assert fast.origin == slow.origin
    assert fast.origin is not None
    assert fast.origin.files
    assert fast.binary == slow.binary
    assert fast.item_ids is not None
    assert slow.item_ids is not None
    assert fast.item_ids.tolist() == slow.item_ids.tolist()
    np.testing.assert_array_equal(fast.counts, slow.counts)
    np.testing.assert_allclose(fast.sums, slow.sums, rtol=1e-12)
    np.testing.assert_allclose(fast.sumsq, slow.sumsq, rtol=1e-12)
    for name in ("clusters", "keys"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.tolist() == b.tolist(), name


def _compare(path: Path, fmt: str, options: ReadOptions) -> bool:
    """Check the fast path against the rows; True when the fast path read the file."""
    fast = read_columnar(path, fmt, options)
    try:
        slow = collect_files(path, options).tables()
    except EvalsigError as exc:
        refused = exc
    else:
        refused = None
    if refused is not None:
        assert fast is None, f"fast path read a file the rows refuse: {refused}"
        with pytest.raises(type(refused)) as again:  # load() gives the row reader's answer
            load(path, **_as_kwargs(options))
        assert str(again.value) == str(refused)
        return False
    if fast is None:
        return False
    assert list(fast) == list(slow)
    for task in slow:
        _same(fast[task], slow[task])
    return True


def _as_kwargs(options: ReadOptions) -> dict[str, Any]:
    names = ("id_column", "score_column", "run_column", "cluster_column", "key_column")
    out: dict[str, Any] = {n: getattr(options, n) for n in names}
    out |= {"task_column": options.task_column, "where": dict(options.where)}
    return out


labels = st.one_of(
    st.integers(0, 30),
    st.sampled_from(["a", "b", "q1", "007", "x y", "é", "", "None", "1.0"]),
    st.none(),
)
scores = st.one_of(
    st.sampled_from([0, 1, 0.5, 1.0, 0.0, True, False, 2, -1, 0.25]),
    st.none(),
    st.just("oops"),
)


@st.composite
def long_tables(draw: st.DrawFn) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    n_items = draw(st.integers(1, 8))
    n_runs = draw(st.integers(1, 3))
    dirty = draw(st.booleans())
    rows = []
    for run in range(n_runs):
        for item in range(n_items):
            rows.append(
                {
                    "item": draw(labels) if dirty and draw(st.booleans()) else f"q{item}",
                    "run": run,
                    "score": draw(scores) if dirty else draw(st.sampled_from([0, 1])),
                    "subject": f"s{item % 3}",
                    "gold": draw(st.sampled_from(["A", "B", None, ""])) if dirty else "A",
                    "model": draw(st.sampled_from(["m1", "m2"])),
                    "task": draw(st.sampled_from(["arc", "gsm"])),
                }
            )
    options = {
        "id_column": "item",
        "score_column": "score",
        "run_column": "run" if n_runs > 1 or draw(st.booleans()) else None,
        "cluster_column": draw(st.sampled_from([None, "subject"])),
        "key_column": draw(st.sampled_from([None, "gold"])),
        "task_column": draw(st.sampled_from([None, "task"])),
        "where": draw(st.sampled_from([{}, {"model": "m1"}])),
    }
    return rows, options


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=long_tables(), fmt=st.sampled_from(sorted(FORMATS)))
def test_the_fast_path_matches_the_row_reader(
    table: tuple[list[dict[str, Any]], dict[str, Any]], fmt: str
) -> None:
    rows, kwargs = table
    where = tuple(kwargs.pop("where").items())
    options = ReadOptions(**kwargs, where=where)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            path = _write(rows, fmt, Path(tmp))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return  # a column pyarrow cannot type (mixed kinds): nothing to write as Parquet
        _compare(path, fmt, options)


def test_clean_files_take_the_fast_path(tmp_path: Path) -> None:
    rows = [
        {"item": f"q{i}", "run": r, "score": (i + r) % 2, "subject": f"s{i % 4}", "gold": "A"}
        for r in range(3)
        for i in range(40)
    ]
    options = ReadOptions(run_column="run", cluster_column="subject")
    for fmt in FORMATS:
        path = _write(rows, fmt, tmp_path)
        assert _compare(path, fmt, options), fmt
    detected = _write(
        [{k: v for k, v in r.items() if k != "subject"} for r in rows], "csv", tmp_path
    )
    assert _compare(detected, "csv", ReadOptions())  # columns and key detected, with notes


def test_a_bad_value_is_named_by_its_line(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item,score\nq1,1\nq2,0\nq3,maybe\nq4,1\n", encoding="utf-8")
    assert read_columnar(path, "csv", ReadOptions()) is None
    with pytest.raises(EvalsigError, match=r"line 4"):
        load(path)


def test_gzip_and_a_pandas_categorical(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    import gzip

    text = "item;score\n" + "".join(f"q{i};{i % 2}\n" for i in range(100))
    gz = tmp_path / "scores.csv.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    assert _compare(gz, "csv", ReadOptions())  # the separator sniffed, with its note
    frame = pd.DataFrame({"item": [f"q{i}" for i in range(50)], "score": [1, 0] * 25})
    frame["item"] = frame["item"].astype("category")
    path = tmp_path / "categorical.parquet"
    frame.to_parquet(path)
    assert _compare(path, "parquet", ReadOptions())


@pytest.mark.parametrize(
    "values",
    [
        [5, 3, 5, 7, 3, -2, 7],
        [0],
        [-128, 127, 0, 127],
        [2**64 - 1, 2**64 - 3, 2**64 - 1],
        [2**62, -(2**62)],  # a range too wide: dictionary encoding instead
    ],
)
def test_integer_labels_coded_as_python_prints_them(values: list[int]) -> None:
    from evalsig.data.build import factorize
    from evalsig.data.readers.columnar import _encode

    kind = (
        pa.uint64()
        if max(values) >= 2**63
        else (pa.int8() if max(values) < 128 and min(values) >= -128 else pa.int64())
    )
    codes, uniques = _encode(pa.chunked_array([pa.array(values, type=kind)]), False)
    expected_codes, expected = factorize(values)
    assert codes.tolist() == expected_codes.tolist()
    assert uniques.tolist() == expected.tolist()


@pytest.mark.parametrize(
    "values",
    [
        ["a", "a", "b", "b", "a", "c", "c", "c"],  # runs side by side, a label coming back
        ["q1", "q2", "q3", "q1", "q2", "q3"],  # no runs: every row coded by hashing
        ["x"],
    ],
)
def test_text_labels_coded_in_order_of_first_appearance(values: list[str]) -> None:
    from evalsig.data.build import factorize
    from evalsig.data.readers.columnar import _encode

    chunks = [pa.array(values[:3], pa.string()), pa.array(values[3:], pa.string())]
    codes, uniques = _encode(pa.chunked_array(chunks), True)
    expected_codes, expected = factorize(values)
    assert codes.tolist() == expected_codes.tolist()
    assert uniques.tolist() == expected.tolist()


def test_an_empty_json_label_is_left_to_the_rows(tmp_path: Path) -> None:
    """An empty string is an error as an id, run or cluster label (the rows say where), and
    a content key like any other (found by the oracle above)."""
    path = _write([{"item": "q0", "score": 1}, {"item": "", "score": 0}], "jsonl", tmp_path)
    assert read_columnar(path, "jsonl", ReadOptions()) is None
    with pytest.raises(EvalsigError, match=r"column 'item' is empty on 1 row\(s\) \('line 2'\)"):
        load(path)
    rows = [{"item": f"q{i}", "score": i % 2, "gold": "" if i else "A"} for i in range(4)]
    assert _compare(_write(rows, "jsonl", tmp_path), "jsonl", ReadOptions(key_column="gold"))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(-3, 40), min_size=1, max_size=60),
    st.sampled_from(["as is", "sorted", "tiled", "repeated"]),
)
def test_small_integer_codes_match_first_appearance(values: list[int], shape: str) -> None:
    """Codes number the distinct values in order of first appearance, as a plain loop does."""
    from evalsig.data.readers.columnar import _encode_small_integers

    array = np.array(values, dtype=np.int64)
    array = {
        "as is": array,
        "sorted": np.sort(array),
        "tiled": np.tile(np.unique(array), 3),
        "repeated": np.repeat(array, 2),
    }[shape]
    order: dict[int, int] = {}
    expected = [order.setdefault(v, len(order)) for v in array.tolist()]
    coded = _encode_small_integers(array)
    assert coded is not None
    codes, uniques = coded
    assert codes.tolist() == expected
    assert list(uniques) == [str(v) for v in order]


@st.composite
def dictionary_columns(draw: st.DrawFn) -> tuple[list[str], Any]:
    """Text labels as chunks of dictionary arrays, each with its own dictionary in any
    order and with values no row uses (as pyarrow's CSV reader or a pandas categorical
    writes them)."""
    pool = [f"q{i}" for i in range(draw(st.integers(1, 12)))]
    chunks, values = [], []
    for _ in range(draw(st.integers(1, 4))):
        rows = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=20))
        extra = draw(st.lists(st.sampled_from(pool), max_size=3))
        dictionary = list(dict.fromkeys(rows + extra))
        if draw(st.booleans()):
            dictionary = draw(st.permutations(dictionary))
        indices = pa.array([dictionary.index(v) for v in rows], pa.int32())
        chunks.append(pa.DictionaryArray.from_arrays(indices, pa.array(dictionary)))
        values += rows
    return values, pa.chunked_array(chunks)


@settings(max_examples=300, deadline=None)
@given(dictionary_columns())
def test_dictionary_labels_coded_in_order_of_first_appearance(
    column: tuple[list[str], Any],
) -> None:
    from evalsig.data.build import factorize
    from evalsig.data.readers.columnar import _encode

    values, chunked = column
    codes, uniques = _encode(chunked, True)
    expected_codes, expected = factorize(values)
    assert np.asarray(codes).tolist() == expected_codes.tolist()
    assert uniques.tolist() == expected.tolist()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=80),
    st.sampled_from(["as is", "sorted", "counting up", "new values ascending"]),
    st.sampled_from([2, 16, 4096]),
    st.booleans(),
)
def test_first_appearance_matches_a_plain_loop(
    values: list[int], shape: str, look: int, unused: bool
) -> None:
    """With a first look shorter than the values too, so that every path is taken."""
    from evalsig.data.readers import columnar
    from evalsig.data.readers.columnar import first_appearance

    columnar.FIRST_LOOK, kept = look, columnar.FIRST_LOOK

    array = np.array(values, dtype=np.int32)
    if shape == "sorted":
        array = np.sort(array)
    elif shape == "counting up":  # each of 0..k repeated, in order
        array = np.repeat(np.arange(len(set(values)), dtype=np.int32), 3)
    elif shape == "new values ascending":  # labels coming back: 0 1 0 2 1 3 ...
        ranks = {v: r for r, v in enumerate(dict.fromkeys(values))}
        array = np.array([ranks[v] for v in values], dtype=np.int32)
    size = int(array.max()) + 1 + unused  # with a value no row uses, or none
    order: dict[int, int] = {}
    expected = [order.setdefault(v, len(order)) for v in array.tolist()]
    try:
        codes, present = first_appearance(array, size)
    finally:
        columnar.FIRST_LOOK = kept
    assert np.asarray(codes).tolist() == expected
    assert present.tolist() == list(order)


@pytest.mark.parametrize(
    "values",
    [np.array([3, -1, 7], np.int32), np.arange(5, dtype=np.int64)[1:], np.array([True, False])],
)
def test_numpy_arrays_cross_to_arrow_and_back(values: np.ndarray) -> None:
    from evalsig.data.readers.columnar import _numpy, arrow

    there = arrow(values)
    assert there.to_pylist() == values.tolist()
    assert (
        _numpy(there).tolist()
        == values.astype(np.uint8 if values.dtype == bool else values.dtype).tolist()
    )
    assert _numpy(pa.chunked_array([there, there])).tolist() == 2 * _numpy(there).tolist()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_reading_a_long_table_imports_neither_pandas_nor_arrow_compute(
    fmt: str, tmp_path: Path
) -> None:
    """pyarrow imports pandas (0.2-0.4 s) when numpy crosses to it or back through its
    converters, and ``pyarrow.compute`` (0.05 s) for casts and takes; the fast path reads
    buffers instead (a CLI run pays for every import)."""
    import subprocess
    import sys

    rows = [{"item": f"q{i}", "run": r, "score": (i * r) % 2} for i in range(50) for r in range(3)]
    path = _write(rows, fmt, tmp_path)
    script = (
        "import sys\n"
        "from evalsig.data.readers import columnar\n"
        "from evalsig.data.readers.base import ReadOptions\n"
        f"found = columnar.read_columnar(__import__('pathlib').Path({str(path)!r}), {fmt!r}, "
        "ReadOptions(run_column='run'))\n"
        "assert found is not None, 'the fast path declined'\n"
        "print('pandas' in sys.modules, 'pyarrow.compute' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False False"


@pytest.mark.parametrize(
    ("values", "empty"),
    [
        ([], False),
        (["a"], False),
        ([""], True),
        (["ab", "c", "", "d"], True),
        (["ab", "cd"], False),
    ],
)
def test_empty_labels_are_found_from_offsets_in_slices_and_chunks(
    values: list[str], empty: bool
) -> None:
    from evalsig.data.readers.columnar import _has_empty

    array = pa.array(["x", *values, "y"], type=pa.string())
    inner = array.slice(1, len(values))  # a non-zero offset into the buffers
    assert _has_empty(inner) is empty
    assert _has_empty(pa.chunked_array([pa.array(["z"]), inner], type=pa.string())) is empty
    assert _has_empty(pa.chunked_array([], type=pa.string())) is False


@pytest.mark.parametrize("values", [[], ["a"], ["acc", "", "é", "exact_match,none"]])
def test_text_arrays_are_built_from_their_buffers(values: list[str]) -> None:
    from evalsig.data.readers.columnar import text_array

    built = text_array(values)
    assert built.type == pa.string()
    assert built.to_pylist() == values
    built.validate(full=True)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_item_ids_stay_arrow_text_until_read(fmt: str, tmp_path: Path) -> None:
    """Two files that list the same items in the same order are compared without making
    their item ids Python strings (60 MB and 0.06 s a million); read, they are the row
    reader's."""
    from evalsig.comparison import compare
    from evalsig.data.readers.columnar import ArrowLabels

    rows = [{"item": f"q{i}", "run": r, "score": (i + r) % 2} for i in range(40) for r in range(2)]
    left, right = tmp_path / "a", tmp_path / "b"
    left.mkdir(), right.mkdir()
    baseline = load(_write(rows, fmt, left), run_column="run")
    flipped = [dict(row, score=1 - row["score"]) for row in rows]
    candidate = load(_write(flipped, fmt, right), run_column="run")
    labels = [t._item_ids for t in (baseline, candidate)]
    assert all(isinstance(lazy, ArrowLabels) for lazy in labels)
    result = compare(baseline, candidate)
    assert result.n_items == 40
    assert all(lazy._strings is None for lazy in labels)
    slow = collect_files(left / f"scores{FORMATS[fmt]}", ReadOptions(run_column="run")).tables()[""]
    assert baseline.item_ids is not None
    assert slow.item_ids is not None
    assert baseline.item_ids.tolist() == slow.item_ids.tolist()


def test_lazy_item_ids_align_take_and_carry_over(tmp_path: Path) -> None:
    """Files listing items in different orders, or different items, are aligned by the
    strings; ``take`` and ``replace`` keep the labels; a table needs its ids given."""
    from dataclasses import replace

    from evalsig.data import pair

    rows = [{"item": f"q{i}", "score": i % 2} for i in range(6)]
    left, right = tmp_path / "a", tmp_path / "b"
    left.mkdir(), right.mkdir()
    baseline = load(_write(rows, "csv", left))
    candidate = load(_write(rows[::-1][:5], "csv", right))
    assert not baseline.same_items(candidate)
    paired = pair(baseline, candidate, on_missing="intersect")
    assert paired.item_ids is not None
    assert paired.item_ids.tolist() == [f"q{i}" for i in range(1, 6)]
    np.testing.assert_array_equal(paired.candidate.sums, paired.baseline.sums)
    assert replace(baseline, source="x")._item_ids is baseline._item_ids
    taken = baseline.take(np.array([4, 1]))
    assert taken.item_ids is not None
    assert taken.item_ids.tolist() == ["q4", "q1"]
    with pytest.raises(TypeError, match="item_ids"):
        ScoreTable(counts=np.ones(2), binary=True, sums=np.ones(2), sumsq=np.ones(2))


def test_models_listing_items_in_one_order_make_one_set_of_strings(tmp_path: Path) -> None:
    """A leaderboard of files that list the same items in one order makes the item ids
    Python strings once, not once a model."""
    from evalsig.data.models import model_scores

    tables = {}
    for m in range(3):
        rows = [{"item": f"q{i}", "score": (i * m) % 2} for i in range(30)]
        folder = tmp_path / f"m{m}"
        folder.mkdir()
        tables[f"m{m}"] = load(_write(rows, "parquet", folder))
    scores = model_scores(tables)
    assert scores.item_ids.tolist() == [f"q{i}" for i in range(30)]
    made = [t._item_ids._strings is not None for t in tables.values()]
    assert made == [True, False, False]


@pytest.mark.parametrize("column", ["item", "run", "subject", "gold", "model", "note"])
def test_text_that_is_not_utf8_is_left_to_the_rows(column: str, tmp_path: Path) -> None:
    """pyarrow reads CSV text unchecked, and evalsig checks every byte as it is read: a
    bad byte past the first 64 KB, in any column (used or not), sends the file to the row
    reader, which refuses it."""
    header = ["item", "run", "score", "subject", "gold", "model", "note"]
    lines = [",".join(header)]
    lines += [f"q{i},{r},{(i + r) % 2},s{i % 3},A,m1,ok" for i in range(4000) for r in range(2)]
    at = header.index(column)
    last = lines[-1].split(",")
    last[at] = last[at][:-1] + "\udcff" if len(last[at]) > 1 else "\udcff"
    lines[-1] = ",".join(last)
    path = tmp_path / "scores.csv"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    options = ReadOptions(
        id_column="item",
        score_column="score",
        run_column="run",
        cluster_column="subject",
        key_column="gold",
        where=(("model", "m1"),),
    )
    assert read_columnar(path, "csv", options) is None
    with pytest.raises(EvalsigError, match="UTF-8"):
        load(path, **_as_kwargs(options))


def test_run_labels_longer_than_the_head_shows(tmp_path: Path) -> None:
    """Run labels of one character in the first 64 KB are read as plain text; a longer one
    further on ("10") is coded as any text is, and the table is the row reader's."""
    lines = ["item,run,score"]
    lines += [f"q{i},{r},{(i * r) % 2}" for i in range(6000) for r in range(10)]
    lines += [f"q{i},10,1" for i in range(6000)]
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(path.read_bytes()) > 1 << 16
    options = ReadOptions(id_column="item", score_column="score", run_column="run")
    assert _compare(path, "csv", options)
    found = read_columnar(path, "csv", options)
    assert found is not None
    assert found[""].n_runs == 11


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=6).map(lambda t: t.encode("utf-8")),
            st.binary(max_size=4),
        ),
        max_size=12,
    ),
    st.integers(1, 7),
)
def test_the_utf8_check_agrees_with_decoding_however_the_reads_fall(
    pieces: list[bytes], size: int
) -> None:
    """ArrowChecked raises exactly when the bytes are not UTF-8, whether a character is cut
    between two reads or not (reads of 1-7 bytes here; pyarrow asks for 4 MiB), from a plain
    file and from a gzip file alike."""
    import gzip

    from evalsig.data.readers.columnar import ArrowChecked

    data = b"".join(pieces)
    try:
        data.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    with tempfile.TemporaryDirectory() as folder:
        for gzipped in (False, True):
            path = Path(folder) / ("data.gz" if gzipped else "data")
            path.write_bytes(gzip.compress(data) if gzipped else data)
            read = bytearray()
            with ArrowChecked(path, gzipped, 1 << 20, str(path)) as stream:
                try:
                    while block := stream.read(size):
                        read += block
                    stream.read(size)  # the end, read again: nothing left, nothing raised
                except UnicodeDecodeError:
                    assert not valid
                else:
                    assert valid
                    assert bytes(read) == data


def _read_all(stream: Any, size: int) -> None:
    while stream.read(size):
        pass


def test_pyarrow_s_inflating_stops_at_the_cap(tmp_path: Path) -> None:
    """A gzip file that expands past the cap is refused by the columnar path's stream,
    whatever the size of the reads, and by the command's reading as a whole."""
    import gzip

    from evalsig.data.readers.columnar import ArrowChecked
    from evalsig.data.readers.streams import TooLarge

    path = tmp_path / "bomb.csv.gz"
    text = b"item,score\n" + b"".join(b"q%d,%d\n" % (i, i % 2) for i in range(100_000))
    path.write_bytes(gzip.compress(text))
    size = len(text)
    for read in (1 << 12, 1 << 22, -1):
        with ArrowChecked(path, True, size, str(path)) as stream:  # exactly at the cap: read
            assert len(stream.read(read)) == min(size, read if read > 0 else size)
        with ArrowChecked(path, True, size - 1, str(path)) as stream, pytest.raises(TooLarge):
            _read_all(stream, read)
    capped = ReadOptions(max_decompressed_bytes=size - 1)
    assert read_columnar(path, "csv", capped) is None  # the row reader gives the error
    with pytest.raises(EvalsigError, match="when decompressed"):
        read_tables(path, capped)
    assert read_columnar(path, "csv", ReadOptions(max_decompressed_bytes=size)) is not None


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_integer_item_ids_stay_numbers_until_read(fmt: str, tmp_path: Path) -> None:
    """Integer ids (lm-eval's doc_id) are compared as numbers and printed as Python prints
    them only when read; with text ids on the other side they are compared as text."""
    from evalsig.comparison import compare
    from evalsig.data.readers.columnar import IntegerLabels

    rows = [{"item": 10 + i, "run": r, "score": (i + r) % 2} for i in range(40) for r in range(2)]
    left, right, back, text = (tmp_path / name for name in "abcd")
    for folder in (left, right, back, text):
        folder.mkdir()
    baseline = load(_write(rows, fmt, left), run_column="run")
    same = load(_write(rows, fmt, right), run_column="run")
    assert isinstance(baseline._item_ids, IntegerLabels)
    assert baseline.same_items(same)
    assert baseline._item_ids._strings is None
    reversed_rows = load(_write(rows[::-1], fmt, back), run_column="run")
    assert compare(baseline, reversed_rows).n_items == 40  # aligned by the text
    as_text = [dict(row, item=str(row["item"])) for row in rows]
    assert baseline.same_items(load(_write(as_text, fmt, text), run_column="run"))
    assert baseline.item_ids is not None
    assert baseline.item_ids.tolist() == [str(10 + i) for i in range(40)]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=long_tables())
def test_item_ids_read_as_text_match_the_row_reader(
    table: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    """A large CSV file's item ids are read as plain text and coded once per run of equal
    neighbours (:data:`ITEMS_AS_TEXT_FROM`, set to 0 here): the same tables, or the same
    refusal, as the row reader."""
    from evalsig.data.readers import columnar

    rows, kwargs = table
    where = tuple(kwargs.pop("where").items())
    options = ReadOptions(**kwargs, where=where)
    saved = columnar.ITEMS_AS_TEXT_FROM
    columnar.ITEMS_AS_TEXT_FROM = 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            _compare(_write(rows, "csv", Path(tmp)), "csv", options)
    finally:
        columnar.ITEMS_AS_TEXT_FROM = saved


@pytest.mark.parametrize("order", ["item-major", "run-major", "shuffled"])
@pytest.mark.parametrize("threshold", [0, 1 << 60])
def test_item_ids_coded_alike_as_text_or_by_block(
    order: str, threshold: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Items side by side (each item's runs together), apart (run by run) or shuffled, in a
    file of several parse blocks: text ids (threshold 0) and block dictionaries give the row
    reader's table."""
    import gzip

    from evalsig.data.readers import columnar

    monkeypatch.setattr(columnar, "ITEMS_AS_TEXT_FROM", threshold)
    monkeypatch.setattr(columnar, "CSV_BLOCK", 1 << 12)  # many blocks, many dictionaries
    pairs = [(i, r) for i in range(700) for r in range(3)]
    if order == "run-major":
        pairs.sort(key=lambda pair: (pair[1], pair[0]))
    elif order == "shuffled":
        pairs = [pairs[k] for k in np.random.default_rng(3).permutation(len(pairs))]
    text = "item,run,score\n" + "".join(f"item-{i},{r},{(i * r) % 2}\n" for i, r in pairs)
    path = tmp_path / "scores.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    assert _compare(path, "csv", ReadOptions(run_column="run"))


def test_text_true_in_a_row_not_kept_is_not_noted(tmp_path: Path) -> None:
    """A score column pyarrow reads as booleans because of a "True" in a row that --where
    leaves out: the kept rows hold 0 and 1, and neither path notes text true/false (the
    fast path leaves such a file to the rows, which see what is kept)."""
    rows = [
        {"item": "q0", "score": 0, "model": "m1"},
        {"item": "q1", "score": 1, "model": "m1"},
        {"item": "q1", "score": "True", "model": "m2"},
    ]
    path = _write(rows, "csv", tmp_path)
    options = ReadOptions(id_column="item", score_column="score", where=(("model", "m1"),))
    assert not _compare(path, "csv", options)  # the rows read it
    (table,) = collect_files(path, options).tables().values()
    assert not any("true/false" in note for note in table.notes)
