"""Untrusted data files: bounded decompression, damaged archives, CSV dialects, nesting.

Every case is built in the test (bombs included, streaming) and must end in a table or in
one FormatError / DataError that names the file and says what to do. Bombs of 2 GiB of
zeros (a few MB on disk) are read in a fresh process whose peak resident memory
(``VmHWM``) must grow far less than the 2 GiB they would expand to.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

from evalsig.data import load
from evalsig.data.readers import ReadOptions, collect_files, read_tables
from evalsig.data.readers.streams import (
    DEFAULT_CAP,
    ENV_VAR,
    TooLarge,
    default_cap,
    parse_size,
)
from evalsig.data.readers.tabular import duplicate_key
from evalsig.errors import DataError, FormatError

CSV_TEXT = "item,score\n" + "".join(f"q{i},{i % 2}\n" for i in range(10))


def repeat_gzip(path: Path, size: int, block: bytes = bytes(1 << 20), head: bytes = b"") -> Path:
    """A gzip file of ``head`` and ``block`` repeated to ``size`` bytes, written streaming.

    After a full flush deflate restarts, so compressing the same block again gives the
    same bytes: one compressed block is written ``size / len(block)`` times, then the
    trailer (CRC-32 and size of everything): 2 GiB of zeros take about 2 MB and a second.
    """
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = packer.compress(head + block) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    end = packer.flush(zlib.Z_FINISH)[:-8]  # the final empty block, without its trailer
    crc = zlib.crc32(head + block)
    with open(path, "wb") as f:
        f.write(first)
        for _ in range(size // len(block) - 1):
            f.write(again)
            crc = zlib.crc32(block, crc)
        total = len(head) + size // len(block) * len(block)
        f.write(end + struct.pack("<II", crc, total & 0xFFFFFFFF))
    return path


ROWS = b"q,1\n" * (1 << 18)  # 1 MiB of CSV rows
LONG_ROWS = (b"q,1," + b"x" * 1019 + b"\n") * 1024  # 1 MiB of rows with a long text column


def test_the_bomb_builder_writes_valid_gzip(tmp_path: Path) -> None:
    path = repeat_gzip(tmp_path / "z.gz", 8 << 20)
    assert gzip.decompress(path.read_bytes()) == bytes(8 << 20)
    rows = repeat_gzip(tmp_path / "r.gz", 4 << 20, ROWS, b"item,score\n")
    assert gzip.decompress(rows.read_bytes()) == b"item,score\n" + ROWS * 4


# --- the cap -------------------------------------------------------------------------------


def test_cap_defaults_to_1_gib_and_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert default_cap() == DEFAULT_CAP == 2**30
    assert ReadOptions().max_decompressed_bytes == 2**30
    monkeypatch.setenv(ENV_VAR, "64M")
    assert ReadOptions().max_decompressed_bytes == 64 * 2**20
    assert [parse_size(s) for s in ("1000", "2k", "1.5G", "3 GiB", "1t")] == [
        1000,
        2048,
        3 * 2**29,
        3 * 2**30,
        2**40,
    ]
    for bad in ("lots", "-1G", "0", "4 GB extra"):
        monkeypatch.setenv(ENV_VAR, bad)
        with pytest.raises(DataError, match=rf"{ENV_VAR}={bad!r} is not a size; .* e\.g\."):
            ReadOptions()


def test_gzip_bomb_stops_at_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bomb = repeat_gzip(tmp_path / "bomb.json.gz", 256 << 20)
    monkeypatch.setenv(ENV_VAR, "4M")
    message = (
        r"bomb\.json\.gz: expands to more than 4,194,304 bytes \(4 MiB\) when decompressed, "
        r"evalsig's cap; .* raise the cap with the environment variable "
        r"EVALSIG_MAX_DECOMPRESSED=16M"
    )
    with pytest.raises(TooLarge, match=message):
        load(bomb)
    csv_bomb = repeat_gzip(tmp_path / "bomb.csv.gz", 64 << 20, ROWS, b"item,score\n")
    with pytest.raises(TooLarge, match=r"bomb\.csv\.gz: expands to more than 4,194,304"):
        load(csv_bomb)


def test_zip_member_that_lies_about_its_size_stops_a_chunk_past_it(tmp_path: Path) -> None:
    packed = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = packed.compress(bytes(64 << 20)) + packed.flush()
    path = _hand_zip(tmp_path / "liar.zip", "x.json", body, method=8, declared=1000)
    with pytest.raises(FormatError, match=r"member 'x.json' declares 1,000 bytes but expands"):
        load(path)


def test_zip_bzip2_and_lzma_members(tmp_path: Path) -> None:
    records = json.dumps([{"item": f"q{i}", "score": i % 2} for i in range(10)]).encode()
    for method in (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        path = tmp_path / f"m{method}.zip"
        with zipfile.ZipFile(path, "w", compression=method) as archive:
            archive.writestr("r.json", records)
        assert load(path).n_items == 10
    bomb = _hand_zip(
        tmp_path / "bz.zip", "r.json", bz2.compress(bytes(256 << 20)), method=12, declared=100
    )
    with pytest.raises(FormatError, match=r"member 'r.json' declares 100 bytes but expands"):
        load(bomb)
    assert lzma  # the LZMA member above is read through zipfile in bounded steps


def test_zstd_member_bomb_and_corruption(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    records = json.dumps([{"item": "a", "score": 1}]).encode()
    good = zstandard.ZstdCompressor().compress(records)
    path = _hand_zip(tmp_path / "ok.zip", "r.json", good, method=93, crc=zlib.crc32(records),
                     declared=len(records))  # fmt: skip
    assert load(path).n_items == 1
    bomb = zstandard.ZstdCompressor().compress(bytes(64 << 20))
    liar = _hand_zip(tmp_path / "zb.zip", "r.json", bomb, method=93, declared=500)
    with pytest.raises(FormatError, match=r"member 'r.json' declares 500 bytes but expands"):
        load(liar)
    broken = _hand_zip(tmp_path / "zc.zip", "r.json", b"\x28\xb5\x2f\xfd" + b"\xff" * 40,
                       method=93, declared=len(records))  # fmt: skip
    with pytest.raises(FormatError, match=r"zc\.zip: member 'r.json' is (corrupt|truncated)"):
        load(broken)


def _hand_zip(
    path: Path, name: str, body: bytes, *, method: int, declared: int, crc: int = 0
) -> Path:
    """A one-member zip archive whose member claims ``declared`` bytes (lying, if need be)."""
    raw = name.encode()
    local = struct.pack(
        "<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(body), declared, len(raw), 0
    )
    central = struct.pack(
        "<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc, len(body), declared,
        len(raw), 0, 0, 0, 0, 0, 0,
    )  # fmt: skip
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central) + len(raw), len(local) + len(raw)
        + len(body), 0,
    )  # fmt: skip
    path.write_bytes(local + raw + body + central + raw + end)
    return path


# --- peak memory while refusing a bomb (a fresh process each, 32 MiB cap) ------------------

BOMB = 2 << 30
CAP = 32 << 20
MEASURE = """
import json, sys
from evalsig.data import load
from evalsig.errors import FormatError

def peak_kib():  # VmHWM: this process's own peak (ru_maxrss counts the parent's at the fork)
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

before = peak_kib()
try:
    load(sys.argv[1])
    error = None
except FormatError as exc:
    error = str(exc)
after = peak_kib()
print(json.dumps({"growth_kib": after - before, "error": error}))
"""

linux_only = pytest.mark.skipif(
    sys.platform != "linux", reason="reads the peak memory from /proc/self/status"
)


def _peak_growth(path: Path) -> tuple[int, str]:
    """(growth of peak RSS in bytes, the error message) of a fresh process reading ``path``."""
    env = os.environ | {"EVALSIG_MAX_DECOMPRESSED": str(CAP)}
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout)
    return report["growth_kib"] * 1024, report["error"]


@linux_only
@pytest.mark.parametrize("name", ["bomb.json.gz", "bomb.csv.gz", "bomb.jsonl.gz"])
def test_gzip_bomb_is_refused_in_bounded_memory(tmp_path: Path, name: str) -> None:
    # CSV rows are read line by line (each kept as an observation: long rows keep that
    # small beside the decompressed bytes); zeros are read whole (JSON) or as one line.
    rows = name == "bomb.csv.gz"
    head = b"item,score,response\n"
    bomb = repeat_gzip(tmp_path / name, BOMB, *((LONG_ROWS, head) if rows else ()))
    assert bomb.stat().st_size < 8 << 20  # 2 GiB in a few MB
    growth, error = _peak_growth(bomb)
    assert error is not None
    assert f"{name}: expands to more than 33,554,432 bytes (32 MiB) when decompressed" in error
    assert "EVALSIG_MAX_DECOMPRESSED=128M" in error
    assert growth < 256 << 20, f"peak RSS grew by {growth:,} bytes for a {CAP:,}-byte cap"


@linux_only
def test_lying_zip_member_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """A member declaring 1 MB that inflates to 2 GiB: stopped a chunk past 1 MB."""
    block = bytes(1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packer.compress(block)
    packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    body = again * (BOMB >> 20) + packer.flush(zlib.Z_FINISH)
    name, declared = b"r.json", 1_000_000
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, 0, len(body), declared, 6, 0)
    central = struct.pack(
        "<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, 0, len(body), declared, 6,
        0, 0, 0, 0, 0, 0,
    )  # fmt: skip
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, 52, 36 + len(body), 0)
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(local + name + body + central + name + end)
    growth, error = _peak_growth(bomb)
    assert error is not None
    assert "bomb.zip: member 'r.json' declares 1,000,000 bytes but expands to more" in error
    assert growth < 128 << 20, f"peak RSS grew by {growth:,} bytes"


# --- damaged compressed files --------------------------------------------------------------


def test_gzip_damage(tmp_path: Path) -> None:
    packed = gzip.compress(CSV_TEXT.encode())
    cases = {
        "cut.csv.gz": (packed[: len(packed) // 2], r"truncated: the gzip stream ends before"),
        "plain.csv.gz": (CSV_TEXT.encode(), r"not gzip-compressed: it does not start with"),
        "tail.csv.gz": (packed + b"junk", r"data that are not gzip follow the end"),
        "crc.csv.gz": (packed[:-8] + b"\0\0\0\0" + packed[-4:], r"the gzip data check failed"),
        "empty.csv.gz": (b"", r"the file is empty \(0 bytes\)"),
        "bits.csv.gz": (packed[:10] + b"\xff" * 8 + packed[18:], r"corrupt: damaged gzip data"),
    }
    for name, (data, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(FormatError, match=rf"{name}: .*{message}.*(re-|completely\?)"):
            collect_files(path, format="csv")


def test_gzip_members_padding_and_signature(tmp_path: Path) -> None:
    half = CSV_TEXT.encode().split(b"q5,")
    path = tmp_path / "two.csv.gz"
    path.write_bytes(gzip.compress(half[0]) + gzip.compress(b"q5," + half[1]) + bytes(100))
    assert load(path).n_items == 10
    unnamed = tmp_path / "packed.csv"  # gzip data without the .gz suffix
    unnamed.write_bytes(gzip.compress(CSV_TEXT.encode()))
    assert load(unnamed).n_items == 10


def test_zip_damage(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("r.json", json.dumps([{"item": f"q{i}", "score": 1} for i in range(50)]))
    good = buffer.getvalue()
    cases = {
        "cut.zip": (good[: len(good) // 2], r"not a readable zip archive: the zip archive is "
                    r"truncated or corrupt \(File is not a zip file\); re-download"),
        "text.zip": (b"hello, world", r"does not start with the zip signature 'PK'"),
        "empty.zip": (b"", r"the file is empty \(0 bytes\)"),
        "central.zip": (good[:-30], r"truncated or corrupt"),
        "flip.zip": (good[:40] + bytes(b ^ 0x55 for b in good[40:60]) + good[60:],
                     r"member 'r.json' is (corrupt|truncated)"),
    }  # fmt: skip
    for name, (data, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(FormatError, match=rf"{name}: .*{message}"):
            load(path, format="json")


# --- CSV dialects and headers ----------------------------------------------------------------


def test_bom_and_semicolons(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbfitem;score\r\nq1;1\r\nq2;0\r\nq3;1\r\n")
    table = load(path)
    assert (table.n_items, table.mean) == (3, 2 / 3)
    assert any("separated by ';', not ','" in note for note in table.notes)
    pipes = tmp_path / "p.tsv"
    pipes.write_text("item|score\nq1|1\nq2|1\n", encoding="utf-8")
    assert load(pipes).mean == 1.0
    plain = tmp_path / "plain.csv"
    plain.write_text("item,score\nq1,1\n", encoding="utf-8")
    assert not any("separated" in note for note in load(plain).notes)


def test_separator_choice(tmp_path: Path) -> None:
    ambiguous = tmp_path / "amb.csv"
    ambiguous.write_text("item;a|b;score\nq1;z;1\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"amb\.csv: line 1 .* any of ';', '\|'; name the sep"):
        load(ambiguous)
    table = load(ambiguous, separator=";")
    assert (table.n_items, table.mean) == (1, 1.0)
    quoted = tmp_path / "q.csv"
    quoted.write_text('"item;x";score\n"a";1\n', encoding="utf-8")  # ';' only in quotes
    with pytest.raises(FormatError, match="no column is recognisably the item id column"):
        load(quoted)
    tabs = tmp_path / "t.csv"
    tabs.write_text("item\tscore\nq1\t1\n", encoding="utf-8")
    assert load(tabs, separator="\\t").n_items == 1
    for bad in ("ab", "", '"'):
        with pytest.raises(DataError, match=rf"separator {bad!r} is not one character"):
            load(tabs, separator=bad)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id,score,score\nq1,1,0\n", r"column name 'score' appears 2 times \(columns 2 and 3\)"),
        ("a,b,a,b\n1,1,1,1\n", r"'a' appears 2 times \(columns 1 and 3\) \(and 1 more"),
        ("\nitem,score\nq1,1\n", r"line 1: the header line is blank"),
        ("item,score\n", r"the file has a header but no rows"),
        ("item,score\nq1,1\nq2\n", r"line 3: has 1 fields but the header has 2"),
        ('item,score\nq1,"1\n', r"line 2: malformed CSV|unclosed"),
        ("i\x00t\x00e\x00m\x00,\x00s\x00\n\x00", r"line 1: contains NUL bytes: binary data"),
    ],
)
def test_header_and_row_problems(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "h.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=rf"h\.csv: .*({message})"):
        load(path)


def test_an_unnamed_index_column_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "pandas.csv"
    path.write_text(",item,score\n0,q1,1\n1,q2,0\n", encoding="utf-8")
    assert load(path).n_items == 2


# --- JSON: duplicate keys and nesting --------------------------------------------------------


def test_duplicate_used_fields_are_refused(tmp_path: Path) -> None:
    doc = tmp_path / "d.json"
    doc.write_text('[{"item": "a", "score": 1}, {"item": "b", "score": 1, "score": 0}]', "utf-8")
    with pytest.raises(FormatError, match=r"d\.json: record 2: field 'score' appears 2 times"):
        load(doc)
    lines = tmp_path / "d.jsonl"
    lines.write_text('{"item": "a", "item": "b", "score": 1}\n{"item": "c", "score": 0}\n', "utf-8")
    with pytest.raises(FormatError, match=r"d\.jsonl: line 1: field 'item' appears 2 times"):
        load(lines)
    nested = tmp_path / "n.json"  # repeated only in a field evalsig does not use
    nested.write_text('[{"item": "a", "score": 1, "m": {"x": 1, "x": 2}}]', "utf-8")
    assert load(nested).n_items == 1
    used = tmp_path / "u.json"
    used.write_text('[{"item": "a", "m": {"s": 1, "s": 0}}]', "utf-8")
    with pytest.raises(FormatError, match=r"record 1: field 'm.s' appears 2 times \(values 1, 0"):
        load(used, score_column="m.s")


def test_duplicate_key_scan_is_exact() -> None:
    # 'score' is also a value and a nested key: counted, then found not to be a duplicate
    raw = b'[{"item": "score", "score": 1, "m": {"score": 2}}, {"item": "b", "score": 0}]'
    assert duplicate_key(raw, ["item", "score"], 2) is None
    assert duplicate_key(b'{"a": 1, "a": 2}', ["a"], 1) == (0, "a", [1, 2])


@pytest.mark.parametrize(
    ("depth", "where", "message"),
    [
        (900, "meta", None),
        (1023, "meta", None),  # with the record itself: 1024 levels, orjson's limit
        (1024, "meta", r"line 1: nested deeper than evalsig's limit of 1024 levels"),
        (5000, "meta", r"nested deeper than evalsig's limit"),
        (995, "item", r"line 1: the item id is an object \(\{'k': \{'k': .*\), not a plain value"),
        (995, "score", r"non-numeric value\(s\): \{'k': \{'k': .*\.\.\."),
    ],
)
def test_deep_nesting(tmp_path: Path, depth: int, where: str, message: str | None) -> None:
    deep = '{"k": ' * depth + "1" + "}" * depth
    fields = {"item": '"a"', "score": "1", "meta": "0"} | {where: deep}
    line = "{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}\n"
    path = tmp_path / "deep.jsonl"
    path.write_text(line + '{"item": "b", "score": 0, "meta": 0}\n', encoding="utf-8")
    if message is None:
        assert load(path).n_items == 2
    else:
        with pytest.raises(FormatError if where != "score" else DataError, match=message):
            load(path)
    document = tmp_path / "deep.json"
    document.write_text("[" + line.strip() + "]", encoding="utf-8")
    if depth >= 1024:
        with pytest.raises(FormatError, match=r"deep\.json: nested deeper than evalsig's limit"):
            load(document)


def test_deep_values_in_harness_fields(tmp_path: Path) -> None:
    deep = '{"k": ' * 400 + "1" + "}" * 400
    log = tmp_path / "oa.jsonl"
    log.write_text(
        '{"spec": {"eval_name": "e"}}\n'
        '{"run_id": "r", "sample_id": "s.0", "type": "match", "data": {"correct": true, '
        f'"expected": {deep}}}}}\n',
        encoding="utf-8",
    )
    with pytest.raises(FormatError, match=r"line 2: data.expected cannot be read as a content"):
        load(log)
    run = tmp_path / "run"
    run.mkdir()
    (run / "per_instance_stats.json").write_text(
        '[{"instance_id": "i1", "train_trial_index": 0, "perturbation": {"name": "p", '
        f'"x": {deep}}}, "stats": [{{"name": {{"name": "em"}}, "mean": 1}}]}}]',
        encoding="utf-8",
    )
    with pytest.raises(FormatError, match=r"perturbation 'p' cannot be compared with others"):
        load(run)


# --- what is not a data file -----------------------------------------------------------------


def test_not_regular_files(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(FormatError, match=r"pipe\.csv: is a named pipe \(FIFO\), not a regular"):
        load(fifo)  # refused before opening: opening a FIFO would block
    with pytest.raises(FormatError, match=r"/dev/zero: is a character device, not a regular"):
        load("/dev/zero", format="csv")
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    with pytest.raises(FormatError, match=r"folder\.csv: is a directory, not a file"):
        load(folder, format="csv")


def test_empty_binary_and_non_utf8_files(tmp_path: Path) -> None:
    cases = {
        "e.jsonl": (b"", r"the file is empty \(0 bytes\)"),
        "b.csv": (bytes(range(256)) * 4, r"line \d+: (not valid UTF-8|contains NUL)"),
        "u.jsonl": (b'{"item": "a", "score": 1}\n\xff\xfe\n', r"line 2: not valid UTF-8"),
        "u.json": (b'[{"item": "\xff", "score": 1}]', r"not valid (UTF-8|JSON)"),
    }
    for name, (data, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(FormatError, match=rf"{name}: {message}"):
            load(path)


@pytest.mark.parametrize(
    ("rows", "bad", "suffix"),
    [
        (3, 3, ".csv"),
        (40_000, 40_000, ".csv"),
        (40_000, 40_000, ".csv.gz"),
        (100_000, 1, ".csv"),
        (100_000, 99_000, ".csv"),
    ],
)
def test_a_byte_that_is_not_utf8_is_named_by_its_line(
    tmp_path: Path, rows: int, bad: int, suffix: str
) -> None:
    """A text stream decodes a block ahead of the line it gives: its error came up to a
    block of lines early (line 1 in a small file); the message now names the byte's line.
    Files from 1 MiB take the column reader first, which hands them to the rows."""
    lines = ["item,score,note"] + [f"q{i},{i % 2},ok" for i in range(rows)]
    data = "\n".join(lines).encode() + b"\n"
    data = data.replace(
        f"\nq{bad - 1},{(bad - 1) % 2},ok\n".encode(), f"\nq{bad - 1},0,".encode() + b"\xff\n"
    )
    path = tmp_path / f"scores{suffix}"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    with pytest.raises(FormatError, match=rf"scores{suffix}: line {bad + 1}: not valid UTF-8"):
        load(path)


def test_parquet_cap_and_damage(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "p.parquet"
    n = 200_000
    table = pa.table({"item": [f"q{i}" for i in range(n)], "score": [i % 2 for i in range(n)]})
    pq.write_table(table, path)
    assert read_tables(path, ReadOptions())[""].n_items == n
    with pytest.raises(TooLarge, match=r"p\.parquet \(columns 'item', 'score'\): expands to"):
        read_tables(path, ReadOptions(max_decompressed_bytes=1_000_000))
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(FormatError, match=r"cut\.parquet: not a readable Parquet file"):
        load(cut)


def test_integers_past_float_range(tmp_path: Path) -> None:
    huge = "1" + "0" * 400  # valid JSON; orjson refuses it, so the fallback parser reads it
    path = tmp_path / "huge.jsonl"
    path.write_text(f'{{"item": "a", "score": {huge}}}\n{{"item": "b", "score": 1}}\n', "utf-8")
    with pytest.raises(DataError, match=r"1 integer\(s\) too large for a floating-point number"):
        load(path)
    samples = tmp_path / "samples_arc_2024-01-01T00-00-00.jsonl"
    samples.write_text(f'{{"doc_id": 0, "acc": {huge}, "doc_hash": "h"}}\n', "utf-8")
    with pytest.raises(FormatError, match=r"line 1: has no per-document metric fields"):
        load(samples)


def test_a_header_without_line_breaks(tmp_path: Path) -> None:
    path = tmp_path / "one_line.csv"
    path.write_text("a," * 600_000, encoding="utf-8")
    with pytest.raises(FormatError, match=r"line 1 \(the header\) is longer than 1,048,576"):
        load(path)


def test_integers_longer_than_python_converts(tmp_path: Path) -> None:
    path = tmp_path / "digits.jsonl"
    path.write_text(
        f'{{"item": "a", "score": 1}}\n{{"item": "b", "score": {"9" * 5000}}}\n', "utf-8"
    )
    with pytest.raises(FormatError, match=r"digits\.jsonl: line 2: .*more than 4300 digits"):
        load(path)


def test_a_zip_needing_an_unknown_version_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "future.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data.json", '[{"item": "a", "score": 1}]')
    data = bytearray(path.read_bytes())
    central = data.index(b"PK\x01\x02")
    data[central + 6 : central + 8] = (110).to_bytes(2, "little")  # "needs zip version 11.0"
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"future\.zip"):
        load(path)
