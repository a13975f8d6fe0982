"""`OpenAIEngine`: any OpenAI-compatible server (vLLM serve, SGLang, a hosted API).

    engine = OpenAIEngine("http://localhost:8000/v1", model="Qwen/Qwen2.5-7B-Instruct")
    engine.generate([GenerationRequest(prompt_ids)])     # /v1/completions with token ids
    engine.chat(messages, tools=tools)                   # /v1/chat/completions (hosted models)
    engine.complete("Is this call a hack? ...")          # text in, text out (the LLM judge)

`generate` sends the prompt as token ids and asks for the sampled tokens' ids and logprobs
(vLLM's ``return_token_ids``, or ``return_tokens_as_token_ids`` on older servers). A server
that returns neither only works with a `tokenizer`, and the completion is then marked
``meta["retokenized"]``: fine for evaluation, not for training. Requests run concurrently
(`max_workers`), over the standard library's `urllib` (no extra dependency). `load_adapter`
uses vLLM's runtime LoRA endpoint (`/v1/load_lora_adapter`, enabled on the server with
``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True``) under a new adapter name per version.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .base import Completion, EngineError, GenerationRequest


def tool_calls_as_text(tool_calls: Sequence[dict[str, Any]] | None) -> str:
    """Structured `tool_calls` of a chat response as Hermes text (what codegym envs parse)."""
    parts = []
    for call in tool_calls or []:
        fn = call.get("function", call)
        args = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError:
                pass  # left as a string: the env's parser reports it
        parts.append("<tool_call>" + json.dumps({"name": fn.get("name"), "arguments": args}) + "</tool_call>")
    return "".join(parts)


class OpenAIEngine:
    """An OpenAI-compatible HTTP server behind the engine contract (see `engines.base`).

    Args:
        base_url: the API root, e.g. ``http://localhost:8000/v1``.
        model: the served model (or adapter) name.
        api_key: default ``$OPENAI_API_KEY`` (servers started without a key ignore it).
        tokenizer: only needed for servers that do not return token ids.
        extra_body: merged into every request (server-specific sampling options).
    """

    probe_tolerance = 0.05

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, tokenizer: Any = None,
                 timeout: float = 300.0, max_workers: int = 8, extra_body: dict[str, Any] | None = None):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.tokenizer = tokenizer
        self.timeout = timeout
        self.max_workers = max_workers
        self.extra_body = dict(extra_body or {})
        self.policy_version = 0
        self._lock = threading.Lock()  # (model, policy_version) change together

    # ---- HTTP ----------------------------------------------------------------------------------

    def _post(self, path: str, payload: dict[str, Any]) -> Any:
        body = json.dumps(payload).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.base_url + path, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                text = resp.read().decode()
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")[:500]
            raise EngineError(f"{self.base_url}{path} answered HTTP {exc.code}: {detail}") from exc
        except (urllib.error.URLError, OSError) as exc:
            raise EngineError(f"cannot reach {self.base_url}{path}: {exc}") from exc
        try:
            return json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            raise EngineError(f"{self.base_url}{path} returned non-JSON: {text[:200]!r}") from exc

    # ---- token ids in, token ids out -----------------------------------------------------------

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        if len(requests) <= 1:
            return [self._complete_ids(r) for r in requests]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(requests))) as pool:
            return list(pool.map(self._complete_ids, requests))

    def _complete_ids(self, r: GenerationRequest) -> Completion:
        with self._lock:  # the adapter this request names is the version its completion records
            model, version = self.model, self.policy_version
        payload: dict[str, Any] = {
            "model": model, "prompt": list(r.prompt_ids), "max_tokens": r.max_new_tokens,
            "temperature": r.temperature, "top_p": r.top_p, "logprobs": 1, "return_token_ids": True,
            "return_tokens_as_token_ids": True, "skip_special_tokens": False, **self.extra_body}
        if r.stop:
            payload["stop"] = list(r.stop)
            payload["include_stop_str_in_output"] = True
        if r.seed is not None:
            payload["seed"] = r.seed
        choice = (self._post("/completions", payload).get("choices") or [None])[0]
        if not choice:
            raise EngineError("the server returned no choices")
        text = choice.get("text") or ""
        lp = choice.get("logprobs") or {}
        ids = choice.get("token_ids")
        meta: dict[str, Any] = {}
        if ids is None and lp.get("tokens") and all(str(t).startswith("token_id:") for t in lp["tokens"]):
            ids = [int(str(t).split(":", 1)[1]) for t in lp["tokens"]]
        if ids is None:
            if self.tokenizer is None:
                raise EngineError("the server returned no token ids (return_token_ids / return_tokens_as_token_ids "
                                  "unsupported): pass tokenizer= to re-tokenize its text (evaluation only)")
            ids, meta["retokenized"] = self.tokenizer.encode(text, add_special_tokens=False), True
        logprobs = lp.get("token_logprobs")
        if logprobs is None:
            logprobs, meta["logprobs_missing"] = [0.0] * len(ids), True
        if len(logprobs) != len(ids) and meta.get("retokenized"):
            # the server's tokens and ours split the text differently: no per-token logprob lines up
            logprobs, meta["logprobs_missing"] = [0.0] * len(ids), True
        if len(logprobs) != len(ids):
            raise EngineError(f"the server returned {len(ids)} token ids but {len(logprobs)} logprobs")
        reason = "length" if choice.get("finish_reason") == "length" else "stop"
        return Completion([int(t) for t in ids], [float(x) if x is not None else 0.0 for x in logprobs],
                          reason, version, text, meta)

    # ---- messages in, text out -----------------------------------------------------------------

    def chat(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None,
             max_tokens: int = 1024, temperature: float = 0.0, top_p: float = 1.0,
             seed: int | None = None) -> Completion:
        """A chat completion; structured tool calls come back as Hermes text after the content."""
        payload: dict[str, Any] = {"model": self.model, "messages": [_chat_message(m) for m in messages],
                                   "max_tokens": max_tokens, "temperature": temperature, "top_p": top_p,
                                   **self.extra_body}
        if tools:
            payload["tools"] = list(tools)
        if seed is not None:
            payload["seed"] = seed
        choice = (self._post("/chat/completions", payload).get("choices") or [None])[0]
        if not choice:
            raise EngineError("the server returned no choices")
        message = choice.get("message") or {}
        text = (message.get("content") or "") + tool_calls_as_text(message.get("tool_calls"))
        reason = "length" if choice.get("finish_reason") == "length" else "stop"
        return Completion([], [], reason, self.policy_version, text, {"chat": True})

    def complete(self, prompt: str, max_tokens: int = 1024, temperature: float = 0.0) -> str:
        """One user message in, the reply text out (what `antihack.LLMJudge` calls)."""
        return self.chat([{"role": "user", "content": prompt}], max_tokens=max_tokens, temperature=temperature).text

    # ---- adapters --------------------------------------------------------------------------------

    def load_adapter(self, path_or_state: Any, version: int) -> None:
        """Load a peft adapter directory on the server as ``<model>-v<version>`` and serve it.

        The adapter before the previous one is unloaded: requests still in flight (async rollouts)
        name the previous one, which stays until the next load."""
        if not isinstance(path_or_state, (str, Path)):
            raise TypeError("OpenAIEngine.load_adapter takes an adapter directory the server can read")
        base = getattr(self, "_base_model", self.model)
        name = f"{base}-v{version}"
        self._post("/load_lora_adapter", {"lora_name": name, "lora_path": str(path_or_state)})
        with self._lock:
            old, self._base_model, self.model = self.model, base, name
            self.policy_version = int(version)
        retired, self._previous = getattr(self, "_previous", None), (old if old != base else None)
        if retired is not None and retired != name:
            try:
                self._post("/unload_lora_adapter", {"lora_name": retired})
            except EngineError:
                pass  # the old adapter only costs memory


def _chat_message(m: dict[str, Any]) -> dict[str, Any]:
    """Env messages as chat-API messages: a `tool` turn without a call id becomes a user turn."""
    if m.get("role") == "tool" and "tool_call_id" not in m:
        return {"role": "user", "content": f"<tool_response>\n{m.get('content', '')}\n</tool_response>"}
    return {k: v for k, v in m.items() if k in ("role", "content", "name", "tool_calls", "tool_call_id")}
