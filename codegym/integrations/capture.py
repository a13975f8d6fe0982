"""A session recorded by `codegym serve` as an `Episode` the trainer learns from.

    records = server.records("sess-1")                  # or load_records("capture.jsonl", "sess-1")
    episode = episode_from_records(records, task_id="toy-add-typo", result=env.result)
    batch = to_sequences([episode], pad_id=tokenizer.pad_token_id)   # trains like any episode

Each record (one model call) is one `Step`: the completion ids, logprobs and policy version the
server recorded, nothing re-tokenized. A record whose prompt ids start with the previous record's
prompt + completion ids continues its segment: the ids in between (the tool output, the chat
template's glue) become the previous step's ``observation_ids``. Any other prompt (the harness
compacted, truncated or rewrote its context) starts a new `Segment` (``start_reason="rewrite"``)
with the whole prompt, so every segment is a token sequence the model actually saw.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from codegym.trainer.data import Episode, Segment, Step

from .serve import Record


def _record(r: Record | Mapping[str, Any]) -> Record:
    return r if isinstance(r, Record) else Record.from_dict(dict(r))


def load_records(path: str | Path, session: str | None = None) -> list[Record]:
    """The records of a ``codegym serve --out`` JSONL file (one `session`'s, or all)."""
    out = []
    for line in Path(path).read_text().splitlines():
        if line.strip():
            r = Record.from_dict(json.loads(line))
            if session is None or r.session == session:
                out.append(r)
    return out


def segments_from_records(records: Iterable[Record | Mapping[str, Any]]) -> list[Segment]:
    """The records' segments: a new one wherever a prompt does not extend the previous turn."""
    segments: list[Segment] = []
    prev: list[int] | None = None  # the previous record's prompt + completion ids
    for r in map(_record, records):
        if prev is not None and len(r.prompt_ids) >= len(prev) and r.prompt_ids[:len(prev)] == prev:
            segments[-1].steps[-1].observation_ids = list(r.prompt_ids[len(prev):])
        else:
            segments.append(Segment(list(r.prompt_ids), [], "start" if not segments else "rewrite"))
        segments[-1].steps.append(Step(list(r.completion_ids), list(r.logprobs), r.policy_version,
                                       finish_reason=r.finish_reason))
        prev = list(r.prompt_ids) + list(r.completion_ids)
    return segments


def episode_from_records(records: Iterable[Record | Mapping[str, Any]], *, task_id: str = "",
                         group_id: str | None = None, result: Mapping[str, Any] | None = None,
                         reward: float | None = None, episode_id: str | None = None, **fields: Any) -> Episode:
    """An `Episode` from one session's records (`Record`s or their dicts, in request order).

    `result`: the episode's outcome, e.g. `CodegymEnvironment.result` (`episode_result`'s dict:
    ``reward``, ``rewards``, ``stop_reason``, ``train_mask``); `reward` overrides its reward.
    Without a result the episode has reward 0 and ``stop_reason="unknown"``. `group_id` defaults
    to the task id (one GRPO group per task). Other `fields` go to `Episode` as they are.
    """
    records = [_record(r) for r in records]
    if not records:
        raise ValueError("no records: did the harness send the session header "
                         "(X-Codegym-Session) to this server?")
    result = dict(result or {})
    session = records[0].session
    episode = Episode(task_id=task_id, group_id=group_id if group_id is not None else task_id,
                      segments=segments_from_records(records),
                      reward=float(reward if reward is not None else result.get("reward", 0.0)),
                      reward_components=dict(result.get("rewards", {})),
                      stop_reason=str(result.get("stop_reason", "") or "unknown"),
                      episode_id=episode_id or session, **fields)
    episode.metadata.setdefault("session", session)
    episode.metadata.setdefault("adapters", sorted({r.adapter or r.model for r in records}))
    temperatures = sorted({r.temperature for r in records})
    episode.metadata.setdefault("temperatures", temperatures)
    if not result.get("train_mask", True):
        episode.mask(str(result.get("stop_reason") or "masked by the env"))
    return episode


__all__ = ["episode_from_records", "load_records", "segments_from_records"]
