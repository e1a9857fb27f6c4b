"""Readers of pairwise battle logs: FastChat / Chatbot Arena, arena-hard-auto, AlpacaEval.

* **fastchat**: a JSON list or JSON Lines of ``{"model_a", "model_b", "winner"}`` with
  winner in ``model_a``, ``model_b``, ``tie``, ``tie (bothbad)`` (a tie counts 0.5).
  With ``style=True``, ``conv_metadata.sum_assistant_a_tokens`` / ``_b_tokens`` give the
  length feature ``(len_a - len_b) / (len_a + len_b)`` (Chatbot Arena's style control).
* **arena-hard**: arena-hard-auto's judgment JSON Lines (``model_judgment/<judge>/<model>
  .jsonl``, one file or a folder of them): per question ``{"question_id" (or "uid"),
  "model", "games": [{"score": "A>B", ...}, ...]}``. Game 1 puts the baseline in position
  A, game 2 swaps the answers; ``A>>B`` and ``B>>A`` weigh ``multiplier`` battles (3, as
  ``show_result.py``), ``A=B`` is a tie. Battles are clustered by question. A game the
  judge left without a verdict (``score`` null) is counted and skipped, never guessed.
* **alpaca-eval**: ``annotations.json``: ``generator_1`` (the reference) against
  ``generator_2`` with ``preference`` in [1, 2] (2: output 2 preferred; AlpacaEval 2's
  weighted preferences are fractional); AlpacaEval 1's draws (0 or 1.5) count half.
  Battles are clustered by instruction; an annotation without one (null or empty) is a
  cluster of its own, with a note, never pooled with the others.

Every malformed record is an error naming the file, the line (or record), the field and
the bad value. The logs are read by :func:`evalsig.data.readers.records.read_records`, the
input path every command shares: a named pipe or a device is refused, gzip data are
decompressed under a cap, and the records parsed are capped (``EVALSIG_MAX_RECORDS``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from evalsig.arena.battle_arrays import Battles, battles
from evalsig.data.provenance import Origin, file_record
from evalsig.data.readers.records import read_records
from evalsig.errors import FormatError

__all__ = ["ArenaFormat", "read_alpaca_eval", "read_arena_hard", "read_battles", "read_fastchat"]

ArenaFormat = Literal["auto", "fastchat", "arena-hard", "alpaca-eval"]

_WINNER = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
_GAME = {"A>>B": (1.0, True), "A>B": (1.0, False), "A=B": (0.5, False),
         "B>A": (0.0, False), "B>>A": (0.0, True)}  # fmt: skip
_FASTCHAT = ("model_a", "model_b", "winner", "conv_metadata")
_ARENA_HARD = ("model", "baseline", "question_id", "uid", "games")
_ALPACA_EVAL = ("generator_1", "generator_2", "preference", "instruction")


def _records(path: Path, fields: Sequence[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, record)`` of a JSON list (``record i``, from 0) or JSON Lines (``line n``),
    read by the one input path of the commands (:mod:`evalsig.data.readers.records`): only
    regular files, bounded decompression and record counts, and a record holding one of
    ``fields`` twice refused."""
    for place, record in read_records(path, format="json", fields=fields, what="battles"):
        number = place.number if place.unit == "line" else place.number - 1
        yield f"{place.source}, {place.unit} {number}", record


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _field(where: str, record: dict[str, Any], name: str, *, text: bool = True) -> Any:
    if name not in record:
        raise FormatError(f"{where}: field {name!r} is missing; every record needs it.")
    value = record[name]
    if text and (not isinstance(value, str) or not value):
        raise FormatError(f"{where}: field {name!r} is {_short(value)}; expected a model name.")
    return value


def _no_label(value: object) -> bool:
    """Whether a cluster label is missing: null, or empty text."""
    return value is None or (isinstance(value, str) and not value.strip())


def _origin(paths: Sequence[Path], fmt: str) -> Origin:
    return Origin(files=tuple(file_record(p) for p in paths), format=fmt)


def read_fastchat(
    path: str | os.PathLike[str], /, *, style: bool = False, cluster: str | None = None
) -> Battles:
    """Chatbot Arena / FastChat battles (JSON list or JSON Lines); ``cluster`` names a
    field (``question_id``, a prompt hash) whose equal values are one cluster."""
    file = Path(path)
    groups: list[object] = []
    a: list[str] = []
    b: list[str] = []
    y: list[float] = []
    length: list[float] = []
    for where, record in _records(file, (*_FASTCHAT, *([cluster] if cluster else []))):
        a.append(_field(where, record, "model_a"))
        b.append(_field(where, record, "model_b"))
        winner = _field(where, record, "winner", text=False)
        if winner not in _WINNER:
            raise FormatError(
                f"{where}: field 'winner' is {_short(winner)}; expected one of "
                f"{', '.join(map(repr, _WINNER))}."
            )
        y.append(_WINNER[winner])
        if cluster is not None:
            value = _field(where, record, cluster, text=False)
            if _no_label(value) or isinstance(value, (dict, list)):
                raise FormatError(
                    f"{where}: field {cluster!r} is {_short(value)}; a cluster needs a "
                    "text or number value (battles without one would be pooled as one "
                    "cluster)."
                )
            groups.append(str(value))
        if style:
            meta = record.get("conv_metadata")
            try:
                la = float(meta["sum_assistant_a_tokens"])  # type: ignore[index]
                lb = float(meta["sum_assistant_b_tokens"])  # type: ignore[index]
            except (TypeError, KeyError, ValueError):
                raise FormatError(
                    f"{where}: field 'conv_metadata' is {_short(meta)}; style control needs "
                    "'sum_assistant_a_tokens' and 'sum_assistant_b_tokens' (or drop --style)."
                ) from None
            length.append((la - lb) / (la + lb) if la + lb > 0 else 0.0)
    return battles(
        a, b, y,
        features=[[v] for v in length] if style else None,
        feature_names=["length"] if style else None,
        cluster=groups if cluster is not None else None,
        source=str(file), origin=_origin([file], "fastchat"),
    )  # fmt: skip


def read_arena_hard(
    path: str | os.PathLike[str],
    /,
    *,
    baseline: str = "gpt-4-0314",
    multiplier: int = 3,
    first_game_only: bool = False,
) -> Battles:
    """arena-hard-auto judgments: a ``<model>.jsonl`` file or a folder of them.

    ``baseline`` is the model in position A of game 1 (arena-hard-auto v0.1's default);
    a record's own ``baseline`` field, when present, wins.
    """
    if isinstance(multiplier, bool) or not isinstance(multiplier, int) or multiplier < 1:
        raise FormatError(f"`multiplier` is {multiplier!r}; use a positive integer (3).")
    root = Path(path)
    files = sorted(root.glob("*.jsonl")) if root.is_dir() else [root]
    if not files:
        raise FormatError(f"{root}: no *.jsonl judgment files in the folder.")
    a: list[str] = []
    b: list[str] = []
    y: list[float] = []
    w: list[float] = []
    cluster: list[str] = []
    unjudged = 0
    for file in files:
        for where, record in _records(file, _ARENA_HARD):
            model = _field(where, record, "model")
            base = record.get("baseline", baseline)
            if not isinstance(base, str) or not base:
                raise FormatError(f"{where}: field 'baseline' is {_short(base)}; expected a name.")
            qid = record.get("question_id", record.get("uid"))
            if _no_label(qid) or isinstance(qid, (dict, list)):
                raise FormatError(
                    f"{where}: field 'question_id' (or 'uid') is "
                    f"{'missing' if qid is None else _short(qid)}; every judgment needs its "
                    "question (its cluster)."
                )
            games = _field(where, record, "games", text=False)
            if not isinstance(games, list) or not games or len(games) > 2:
                raise FormatError(
                    f"{where}: field 'games' is {_short(games)}; expected a list of one or "
                    "two judgments."
                )
            for g, game in enumerate(games[:1] if first_game_only else games):
                score = game.get("score") if isinstance(game, dict) else game
                if score is None:
                    unjudged += 1
                    continue
                if score not in _GAME:
                    raise FormatError(
                        f"{where}: field 'games[{g}].score' is {_short(score)}; expected one "
                        f"of {', '.join(map(repr, _GAME))} or null (no verdict)."
                    )
                outcome, strong = _GAME[score]
                a.append(base)
                b.append(model)
                y.append(outcome if g == 0 else 1.0 - outcome)  # game 2: answers swapped
                w.append(float(multiplier) if strong else 1.0)
                cluster.append(str(qid))
    notes = []
    if unjudged:
        notes.append(f"{unjudged:,} games without a verdict (score null) were left out.")
    if multiplier > 1:
        notes.append(f"strong verdicts (A>>B, B>>A) weigh {multiplier} battles.")
    return battles(
        a, b, y, weights=w, cluster=cluster, source=str(root), notes=notes,
        origin=_origin(files, "arena-hard"),
    )  # fmt: skip


def read_alpaca_eval(path: str | os.PathLike[str], /) -> Battles:
    """AlpacaEval ``annotations.json``: each model against the reference (generator_1)."""
    file = Path(path)
    a: list[str] = []
    b: list[str] = []
    y: list[float] = []
    cluster: list[int] = []
    codes: dict[str, int] = {}
    unjudged = 0
    alone = 0
    for where, record in _records(file, _ALPACA_EVAL):
        reference = _field(where, record, "generator_1")
        model = _field(where, record, "generator_2")
        preference = _field(where, record, "preference", text=False)
        if preference is None:
            unjudged += 1
            continue
        if isinstance(preference, bool) or not isinstance(preference, (int, float)):
            raise FormatError(
                f"{where}: field 'preference' is {_short(preference)}; expected a number "
                "in [1, 2] (or 0 for a draw)."
            )
        value = float(preference)
        if value == 0.0:
            value = 1.5  # AlpacaEval 1's draw
        if not 1.0 <= value <= 2.0:
            raise FormatError(
                f"{where}: field 'preference' is {preference!r}; expected a number in "
                "[1, 2] (1: output 1 preferred, 2: output 2) or 0 for a draw."
            )
        a.append(model)
        b.append(reference)
        y.append(value - 1.0)
        instruction = _field(where, record, "instruction", text=False)
        if _no_label(instruction):  # an unknown prompt: a cluster of its own, never pooled
            alone += 1
            cluster.append(-alone)
        else:
            cluster.append(codes.setdefault(str(instruction), len(codes)))
    notes = [f"{unjudged:,} annotations without a preference were left out."] if unjudged else []
    if alone:
        notes.append(
            f"{alone:,} annotations have no instruction (null or empty): each is a cluster of "
            "its own, as if its prompt were shared with no other battle (they are not pooled "
            "into one cluster); give them their instructions for honest prompt clusters."
        )
    return battles(
        a, b, y, cluster=cluster, source=str(file), notes=notes,
        origin=_origin([file], "alpaca-eval"),
    )  # fmt: skip


def detect(path: str | os.PathLike[str]) -> Literal["fastchat", "arena-hard", "alpaca-eval"]:
    """The format from the first record's fields (``winner``, ``games`` or ``preference``)."""
    root = Path(path)
    file = next(iter(sorted(root.glob("*.jsonl"))), root) if root.is_dir() else root
    for where, record in _records(file, ()):
        if "games" in record:
            return "arena-hard"
        if "winner" in record:
            return "fastchat"
        if "preference" in record:
            return "alpaca-eval"
        raise FormatError(
            f"{where}: cannot tell the battle format (no 'winner', 'games' or 'preference' "
            "field); name it with format= / --format-in."
        )
    raise FormatError(f"{file}: no records.")


def read_battles(
    path: str | os.PathLike[str],
    /,
    *,
    format: ArenaFormat = "auto",
    baseline: str | None = None,
    style: bool = False,
    cluster: str | None = None,
) -> Battles:
    """Battles from any of the three formats (detected from the first record by default).
    arena-hard and AlpacaEval logs are clustered by question / instruction already."""
    chosen = detect(path) if format == "auto" else format
    if chosen == "fastchat":
        return read_fastchat(path, style=style, cluster=cluster)
    if style or cluster is not None:
        raise FormatError(
            f"style control and cluster fields are for FastChat logs; {chosen} logs are "
            "clustered by question already."
        )
    if chosen == "arena-hard":
        return (
            read_arena_hard(path) if baseline is None else read_arena_hard(path, baseline=baseline)
        )
    if chosen == "alpaca-eval":
        return read_alpaca_eval(path)
    raise FormatError(
        f"`format` is {format!r}; use 'auto', 'fastchat', 'arena-hard' or 'alpaca-eval'."
    )
