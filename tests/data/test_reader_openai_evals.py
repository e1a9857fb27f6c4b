"""OpenAI evals event logs, generated here in the format ``oaieval`` writes."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import evalsig
from evalsig.data import describe
from evalsig.data.readers import READERS, register
from evalsig.data.readers.openai_evals import OPENAI_EVALS, canonical_key
from evalsig.errors import AlignmentError, FormatError

RUN_ID = "2301010000004ABCDEFG"
EVAL = "test-match.s1.simple-v0"


@pytest.fixture(scope="module", autouse=True)
def _openai_evals_registered() -> Iterator[None]:
    saved = dict(READERS)
    register(OPENAI_EVALS, first=True)
    yield
    READERS.clear()
    READERS.update(saved)


def _spec(eval_name: str = EVAL, **run_config: Any) -> dict[str, Any]:
    """The first line: ``{"spec": dataclasses.asdict(RunSpec)}`` (evals/base.py)."""
    return {
        "spec": {
            "completion_fns": ["gpt-3.5-turbo"],
            "eval_name": eval_name,
            "base_eval": eval_name.split(".")[0],
            "split": eval_name.split(".")[1],
            "run_config": {"completion_fns": ["gpt-3.5-turbo"], "seed": 20220722, **run_config},
            "created_by": "",
            "run_id": RUN_ID,
            "created_at": "2023-01-01 00:00:00.000000",
        }
    }


class _Log:
    """Events as ``RecorderBase.record_event`` numbers them, in recording order."""

    def __init__(self, *, spec: Mapping[str, Any] | None = None) -> None:
        self.lines: list[Any] = [] if spec is None else [dict(spec)]

    def event(self, sample: str, type: str, data: Mapping[str, Any]) -> None:
        self.lines.append(
            {
                "run_id": RUN_ID,
                "event_id": sum("event_id" in line for line in self.lines),
                "sample_id": sample,
                "type": type,
                "data": dict(data),
                "created_by": "",
                "created_at": "2023-01-01 00:00:01.000000+00:00",
            }
        )

    def match(self, sample: str, correct: bool, expected: object) -> None:
        """What ``record_and_check_match`` records: a sampling then a match event."""
        picked = expected if correct else None
        self.event(sample, "sampling", {"prompt": "Q?", "sampled": ["A"]})
        self.event(
            sample,
            "match",
            {"correct": correct, "expected": expected, "picked": picked, "sampled": "A"},
        )

    def write(self, path: Path, *, report: bool = True) -> Path:
        lines = self.lines + ([{"final_report": {"accuracy": 0.5}, "run_id": RUN_ID}] * report)
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        return path


def _sample(i: int) -> str:
    return f"test-match.s1.{i}"


def _single(path: Path, correct: Sequence[bool], expected: Sequence[object] | None = None) -> Path:
    log = _Log(spec=_spec())
    for i, c in enumerate(correct):
        log.match(_sample(i), c, f"answer {i}" if expected is None else expected[i])
    return log.write(path)


def _by_item(table: evalsig.ScoreTable) -> dict[str, float]:
    assert table.item_ids is not None
    return dict(zip(table.item_ids.tolist(), table.means.tolist(), strict=True))


def test_repeated_match_events_are_runs(tmp_path: Path) -> None:
    log = _Log(spec=_spec())
    outcomes = {0: [True, True, False], 1: [False, False, False], 2: [True, True, True]}
    expected: dict[int, object] = {0: "Paris", 1: ["4", "four"], 2: "x"}
    for round_ in range(3):  # samples interleave, as with several threads
        for i, results in outcomes.items():
            log.match(_sample(i), results[round_], expected[i])
    log.event(_sample(0), "metrics", {"accuracy": 1.0, "f1_score": 0.25})  # not read
    path = log.write(tmp_path / "run.jsonl")

    table = evalsig.load(path)  # detected from the content
    assert (table.n_items, table.n_runs) == (3, 3)
    assert _by_item(table) == {_sample(0): 2 / 3, _sample(1): 0.0, _sample(2): 1.0}
    assert table.binary
    assert table.keys is not None
    assert table.keys.tolist() == ["Paris", "4 | four", "x"]

    d = describe(path)
    assert d.formats == ("openai-evals",)
    (task,) = d.tasks
    assert (task.name, task.n_items, task.n_observations) == (EVAL, 3, 9)
    assert (task.runs, task.metrics, task.binary) == ((3, 3), ("match",), True)
    assert d.key_fields == ("expected",)
    assert d.cluster_fields == ()
    assert evalsig.load(path, format="openai-evals", metric="match").mean == pytest.approx(5 / 9)


def test_compare_two_logs(tmp_path: Path) -> None:
    base = _single(tmp_path / "a.jsonl", [True, False, False, True, False, True])
    cand = _single(tmp_path / "b.jsonl", [True, True, True, True, False, True])
    r = evalsig.compare(base, cand, method="mcnemar", variant="exact")
    assert r.method == "mcnemar-exact"
    assert (r.n_items, r.n01, r.n10) == (6, 2, 0)
    assert r.estimate == pytest.approx(2 / 6)
    assert r.pvalue == pytest.approx(0.5)  # R: binom.test(2, 2)$p.value == 0.5

    answers = [f"answer {i}" for i in range(6)]
    answers[3] = "a revised answer"
    revised = _single(tmp_path / "c.jsonl", [True] * 6, answers)
    with pytest.raises(
        AlignmentError,
        match=r"1 item\(s\) have a different content key .*\('test-match.s1.3': 'answer 3' "
        r"vs 'a revised answer'\)",
    ):
        evalsig.compare(base, revised)
    kept = evalsig.compare(base, revised, on_mismatch="exclude")
    assert (kept.n_items, kept.n_mismatched) == (5, 1)


def test_malformed_lines(tmp_path: Path) -> None:
    good = _single(tmp_path / "good.jsonl", [True, False, True])
    lines = good.read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4][:40]  # line 5: sample 1's match event, cut short
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"broken.jsonl: line 5: not valid JSON .* truncated"):
        evalsig.load(broken)
    table = evalsig.load(broken, skip_bad_lines=True)
    assert _by_item(table) == {_sample(0): 1.0, _sample(2): 1.0}
    assert any("skipped 1 malformed record(s) ('line 5')" in n for n in table.notes)
    assert describe(broken, skip_bad_lines=True).skipped == 1

    log = _Log(spec=_spec())
    log.match(_sample(0), True, "a")
    log.event(_sample(1), "match", {"correct": "yes", "expected": "b"})
    log.lines.append({"note": "not an event"})
    log.lines.append({"spec": {"base_eval": "test-match"}})
    odd = log.write(tmp_path / "odd.jsonl")
    with pytest.raises(FormatError, match=r"line 4: the match event has data.correct = 'yes'"):
        evalsig.load(odd)
    skipped = evalsig.load(odd, skip_bad_lines=True)
    assert skipped.n_items == 1
    skipped_note = "skipped 3 malformed record(s) ('line 4', 'line 5', 'line 6')"
    assert any(skipped_note in n for n in skipped.notes)
    stray = _Log(spec=_spec())
    stray.match(_sample(0), True, "a")
    stray.lines.append({"note": "not an event"})
    with pytest.raises(FormatError, match=r"line 4: is neither the spec line, an event"):
        evalsig.load(stray.write(tmp_path / "stray.jsonl"), format="openai-evals")
    stray.lines[-1] = {"spec": {"base_eval": "test-match"}}
    with pytest.raises(FormatError, match=r"line 4: the spec line has no 'eval_name'"):
        evalsig.load(stray.write(tmp_path / "stray.jsonl"), format="openai-evals")


def test_log_without_match_events(tmp_path: Path) -> None:
    log = _Log(spec=_spec("modelgraded.dev.v0"))
    for i in range(2):
        log.event(_sample(i), "sampling", {"prompt": "Q?", "sampled": ["A"]})
        log.event(_sample(i), "metrics", {"choice": "Y", "score": 1.0})
    path = log.write(tmp_path / "graded.jsonl")
    with pytest.raises(
        FormatError,
        match=r"graded.jsonl: no 'match' events, the only per-sample scores .* event types "
        r"found: 'sampling' \(2\), 'metrics' \(2\)\.",
    ):
        evalsig.load(path)
    empty = _Log(spec=_spec()).write(tmp_path / "empty.jsonl")
    with pytest.raises(FormatError, match=r"event types found: none\."):
        evalsig.load(empty)


def test_detection(tmp_path: Path) -> None:
    events_only = _Log()
    events_only.match(_sample(0), True, "a")
    events_only.match(_sample(1), False, "b")
    path = events_only.write(tmp_path / "events.jsonl", report=False)
    d = describe(path)
    assert d.formats == ("openai-evals",)
    assert d.tasks[0].name == ""
    assert any("no spec line" in n for n in d.notes)

    long_spec = _spec(eval_instructions="x" * 10_000)  # first line longer than the sniffed head
    log = _Log(spec=long_spec)
    log.match(_sample(0), True, "a")
    text = log.write(tmp_path / "long.jsonl").read_bytes()
    assert describe(tmp_path / "long.jsonl").formats == ("openai-evals",)
    with gzip.open(tmp_path / "long.jsonl.gz", "wb") as f:
        f.write(text)
    assert evalsig.load(tmp_path / "long.jsonl.gz").mean == 1.0

    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"id": "q1", "score": 1}\n{"id": "q2", "score": 0}\n', encoding="utf-8")
    assert describe(plain).formats == ("jsonl",)
    assert not OPENAI_EVALS.sniff(tmp_path / "x.json", b'{"spec": {"eval_name": "a"}}\n')
    assert not OPENAI_EVALS.sniff(plain, b"[1, 2]\n")


def test_canonical_keys() -> None:
    assert canonical_key(["B", "C"]) == "B | C"
    assert canonical_key(3) == "3"
    assert canonical_key({"b": 1, "a": [2]}) == '{"a":[2],"b":1}'


def test_logs_named_dot_log_are_detected_by_content(tmp_path: Path) -> None:
    """``--record_path`` is often a ``.log`` file: detected by its first line, not its name."""
    plain = _single(tmp_path / "a.jsonl", [True, False, False, True, False, True])
    renamed = tmp_path / "run.log"
    renamed.write_bytes(plain.read_bytes())
    assert describe(renamed).layouts == ("openai-evals event log (JSON Lines)",)
    assert evalsig.load(renamed).sums.tolist() == evalsig.load(plain).sums.tolist()
    other = tmp_path / "server.log"
    other.write_text("2024-05-01 INFO started\n", encoding="utf-8")
    with pytest.raises(FormatError, match="cannot tell the format"):
        evalsig.load(other)
