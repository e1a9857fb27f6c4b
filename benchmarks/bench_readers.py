"""Parse rate of harness logs, beside a plain per-line parsing loop in the same run.

Target: evalsig reads lm-evaluation-harness samples at least as fast as a plain ``orjson``
loop over the lines (issue 16; the ``json.loads`` loop is shown for context), and Inspect
AI ``.eval`` logs as fast as ``json.loads`` per member, with memory that does not grow with
the text in the file. A gzipped CSV is read beside ``gzip.open`` + ``csv.reader``: the
bounded, chunked decompression (the cap on decompressed size) should cost nothing
measurable.
"""

from __future__ import annotations

import csv
import gzip
import json
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import orjson

from _util import best_time, mb, peak_memory, row
from evalsig.data import load
from evalsig.data.readers.base import open_text

N_DOCS = 50_000
PADDING = "The quick brown fox jumps over the lazy dog. " * 40  # responses are long text


def _lm_eval_file(folder: Path) -> Path:
    path = folder / "samples_arc_easy_2026-01-01T00-00-00.000000.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(N_DOCS):
            record = {
                "doc_id": i,
                "doc": {"question": f"Question {i}?", "choices": ["a", "b", "c", "d"]},
                "target": i % 4,
                "arguments": [[f"Question {i}?\nAnswer:", f" {c}"] for c in "abcd"],
                "resps": [[[str(-1.5 - j), "False"]] for j in range(4)],
                "filtered_resps": [[str(-1.5 - j), "False"] for j in range(4)],
                "filter": "none",
                "metrics": ["acc", "acc_norm"],
                "doc_hash": f"{i:064x}",
                "prompt_hash": f"{i:064x}",
                "target_hash": f"{i:064x}",
                "acc": float(i % 3 == 0),
                "acc_norm": float(i % 2 == 0),
                "response_text": PADDING,
            }
            f.write(json.dumps(record) + "\n")
    return path


def _inspect_log(folder: Path) -> Path:
    path = folder / "log.eval"
    header = {"version": 2, "status": "success", "eval": {"task": "arc", "model": "m"}}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(header))
        for i in range(N_DOCS // 5):
            sample = {
                "id": i, "epoch": 1, "input": f"Question {i}?", "target": "A",
                "messages": [{"role": "assistant", "content": PADDING}],
                "output": {"completion": PADDING}, "scores": {"choice": {"value": "C"}},
                "metadata": {"subject": f"s{i % 10}"},
            }  # fmt: skip
            z.writestr(f"samples/{i}_epoch_1.json", json.dumps(sample))
    return path


def _plain_loop(path: Path) -> int:
    n = 0
    with path.open("rb") as f:
        for line in f:
            json.loads(line)
            n += 1
    return n


def _plain_orjson_loop(path: Path) -> int:
    n = 0
    with path.open("rb") as f:
        for line in f:
            orjson.loads(line)
            n += 1
    return n


def _side_by_side(
    functions: dict[str, Callable[[], object]], repeat: int
) -> tuple[dict[str, float], dict[str, object]]:
    """Best time of each function, called in turn ``repeat`` times (the machine is shared:
    each side gets the same quiet and busy moments), and each one's last result."""
    best = dict.fromkeys(functions, float("inf"))
    results: dict[str, object] = {}
    for _ in range(repeat):
        for name, function in functions.items():
            seconds, results[name] = best_time(function, 1)
            best[name] = min(best[name], seconds)
    return best, results


def _plain_zip_loop(path: Path) -> int:
    n = 0
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            json.loads(z.read(name))
            n += 1
    return n


def _plain_gzip_csv(path: Path) -> int:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        return sum(1 for _ in csv.reader(f))


def _capped_gzip_csv(path: Path) -> int:
    with open_text(path, max_decompressed_bytes=2**30) as f:
        return sum(1 for _ in csv.reader(f))


def _gzip_csv(folder: Path) -> float:
    path = folder / "scores.csv.gz"
    rows = 20 * N_DOCS
    with gzip.open(path, "wt", encoding="utf-8", newline="") as f:
        f.write("item,run,score\n")
        f.writelines(f"q{i // 3},{i % 3},{i % 2}\n" for i in range(rows))
    print(f"gzipped CSV: {rows:,} rows, {mb(path.stat().st_size)} compressed")
    ours, _ = best_time(lambda: _capped_gzip_csv(path), 3)
    plain, _ = best_time(lambda: _plain_gzip_csv(path), 3)
    whole, _ = best_time(lambda: load(path), 1)
    for label, seconds in (
        ("evalsig's capped gzip stream + csv.reader", ours),
        ("gzip.open + csv.reader", plain),
        ("evalsig.load() (parse, map, validate)", whole),
    ):
        print(row(label, seconds, f"{rows / seconds:,.0f} rows/s"))
    print(f"  -> the capped stream runs at {plain / ours:.2f}x gzip.open's speed (target ~1)")
    return plain / ours


def main() -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        samples = _lm_eval_file(folder)
        size = samples.stat().st_size
        print(f"lm-evaluation-harness samples: {N_DOCS:,} documents, {mb(size)}")
        times, results = _side_by_side(
            {
                "ours": lambda: load(samples, metric="acc"),
                "orjson": lambda: _plain_orjson_loop(samples),
            },
            7,
        )
        ours, peer, table = times["ours"], times["orjson"], results["ours"]
        plain, _ = best_time(lambda: _plain_loop(samples), 3)
        peak, _ = peak_memory(lambda: load(samples, metric="acc"))
        for label, seconds in (
            ("evalsig.load(metric='acc')", ours),
            ("orjson.loads per line", peer),
            ("json.loads per line", plain),
        ):
            print(
                row(
                    label,
                    seconds,
                    f"{size / 2**20 / seconds:,.0f} MB/s, {N_DOCS / seconds:,.0f} rows/s",
                )
            )
        print(
            f"  -> {peer / ours:.2f}x the plain orjson loop (target >= 1); {plain / ours:.2f}x "
            f"the json.loads loop; peak memory {mb(peak)} for a {mb(size)} file; "
            f"{table.n_items:,} items read"
        )
        out["lm_eval_ratio"] = peer / ours
        out["lm_eval_peak_over_size"] = peak / size
        out["gzip_csv_ratio"] = _gzip_csv(folder)
        log = _inspect_log(folder)
        try:
            load(log, format="inspect")
        except Exception as exc:  # the Inspect reader may be absent from older builds
            print(f"  (Inspect AI reader unavailable: {exc})")
            return out
        raw = sum(i.file_size for i in zipfile.ZipFile(log).infolist())
        print(f"Inspect AI .eval log: {N_DOCS // 5:,} samples, {mb(raw)} uncompressed")
        ours, _ = best_time(lambda: load(log), 3)
        plain, _ = best_time(lambda: _plain_zip_loop(log), 3)
        for label, seconds in (("evalsig.load()", ours), ("json.loads per member", plain)):
            print(
                row(
                    label,
                    seconds,
                    f"{raw / 2**20 / seconds:,.0f} MB/s, {N_DOCS // 5 / seconds:,.0f} samples/s",
                )
            )
        print(f"  -> {plain / ours:.2f}x the plain loop (target >= 1)")
        out["inspect_ratio"] = plain / ours
    return out


if __name__ == "__main__":
    main()
