"""`codegym serve`: an OpenAI-compatible server in front of a codegym engine that records every
request's exact token ids, so a black-box agent harness produces training-grade episodes.

    server = CaptureServer(TransformersEngine(model, tokenizer)).start()   # http://127.0.0.1:<port>/v1
    # point any OpenAI/litellm client at server.url, with the header X-Codegym-Session: <id>
    episode = episode_from_records(server.records("<id>"), task_id="toy-add-typo")  # .capture

Routes (vLLM's names): ``POST /v1/chat/completions``, ``POST /v1/completions`` (a text or a
token-id prompt), ``GET /v1/models``, ``POST /v1/load_lora_adapter`` and
``POST /v1/unload_lora_adapter`` (``{"lora_name", "lora_path"}``; a request whose ``model`` is
an adapter's name is served by it), plus ``GET /v1/codegym/sessions[/<id>]`` and
``DELETE /v1/codegym/sessions/<id>`` to read the records from another process.

Every request becomes a `Record` of its session (the ``X-Codegym-Session`` header, else the
body's ``user``, else ``"default"``): prompt and completion ids, the sampled tokens' logprobs
(``log_softmax(logits / T)``, as the engines define them), the adapter and its version. Chat
prompts are rendered with the tokenizer's chat template and never re-tokenize what the model
sampled: when the rendering extends the session's previous prompt + completion text, the prompt
ids are the previous prompt and completion ids plus the ids of the appended text only (what
`LLMAgent` does). Otherwise (the harness compacted or rewrote its context) the whole rendering
is tokenized and `Record.extends` is False: `codegym.integrations.capture` starts a new segment.

The reply's text is the completion decoded as sampled (special tokens and stop strings kept,
only a final eos dropped), so a harness that sends it back verbatim keeps the session one
segment. The server listens on 127.0.0.1 only; generation is serialized (one request at a time).

**Fault injection** (``ignore_adapter_loads=True``, ``codegym serve --ignore-adapter-loads``):
exists only to test adapter-sync checks. ``/v1/load_lora_adapter`` answers 200 as usual and
registers the name and version, but loads nothing: requests that name the adapter are served
by the weights served at start (the base, or ``--adapter``) and report the adapter's version.
That is the silent failure of a stale server (OpenPipe/ART#661), which the trainer's
adapter-sync probe must catch (`tests/trainer/test_sync.py`). Never use it to serve a model.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from codegym.agents.engines.base import EngineError, GenerationRequest

log = logging.getLogger(__name__)

#: The header that names a request's session.
SESSION_HEADER = "X-Codegym-Session"
HOST = "127.0.0.1"


@dataclass
class Record:
    """One request as the model saw it. `extends`: the prompt is the session's previous
    prompt + completion ids plus new ids (False for a session's first request or a rewrite)."""

    session: str
    index: int
    route: str  # "chat" | "completions"
    model: str
    adapter: str | None
    policy_version: int
    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    finish_reason: str
    temperature: float
    top_p: float
    extends: bool
    request_id: str = ""
    created: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Record:
        return cls(**d)


class HTTPError(Exception):
    """An error reply: HTTP `status` and an OpenAI-style error body."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.kind = status, kind


@dataclass
class _Session:
    records: list[Record] = field(default_factory=list)
    text: str = ""  # the last chat request's rendering + its completion's text
    ids: list[int] = field(default_factory=list)  # ... and their ids


class CaptureServer:
    """See the module docstring.

    Args:
        engine: a codegym engine; `TransformersEngine` (or any with a peft ``model``) for LoRA routes.
        tokenizer: default ``engine.tokenizer``; needed for chat and text prompts.
        model_name: the base model's name in ``/v1/models`` and requests.
        port: 0 picks a free port (see `url`).
        out: append every record to this JSONL file as well.
        max_tokens: completion length when a request gives none.
        ignore_adapter_loads: fault injection for tests of adapter-sync checks (module docstring):
            adapter loads answer 200 and change nothing.
    """

    def __init__(self, engine: Any, tokenizer: Any = None, *, model_name: str = "codegym", port: int = 0,
                 out: str | Path | None = None, max_tokens: int = 512, ignore_adapter_loads: bool = False):
        self.engine = engine
        self.tokenizer = tokenizer if tokenizer is not None else getattr(engine, "tokenizer", None)
        self.model_name = model_name
        self.max_tokens = max_tokens
        self.ignore_adapter_loads = ignore_adapter_loads
        self.out = Path(out) if out else None
        self.base_version = int(getattr(engine, "policy_version", 0))
        model = getattr(engine, "model", None)
        self._base_adapter = getattr(model, "active_adapter", None) if hasattr(model, "peft_config") else None
        self.adapters: dict[str, dict[str, Any]] = {}  # name -> {"path", "version", "weights"}
        self._top_version = self.base_version  # the highest version served so far
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()  # sessions and records
        self._gen_lock = threading.Lock()  # adapter selection + generation
        self._httpd = ThreadingHTTPServer((HOST, port), _handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # ---- lifecycle -----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The API root, e.g. ``http://127.0.0.1:8000/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    def start(self) -> CaptureServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="codegym-serve", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def stop(self) -> None:
        """Stop the background thread (if `start` ran one) and close the socket."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> CaptureServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- records -------------------------------------------------------------------------------

    def sessions(self) -> dict[str, int]:
        """Session id -> number of records."""
        with self._lock:
            return {k: len(s.records) for k, s in self._sessions.items()}

    def records(self, session: str) -> list[Record]:
        """The session's records in request order (empty for an unknown session)."""
        with self._lock:
            return list(self._sessions[session].records) if session in self._sessions else []

    def pop(self, session: str) -> list[Record]:
        """The session's records, forgetting the session."""
        with self._lock:
            s = self._sessions.pop(session, None)
            return list(s.records) if s else []

    def _record(self, record: Record) -> None:
        if self.out is not None:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            with self._lock, self.out.open("a") as f:
                f.write(json.dumps(record.to_dict()) + "\n")

    # ---- adapters (vLLM's runtime LoRA routes) -------------------------------------------------

    def load_adapter(self, name: str, path: str, version: int | None = None) -> int:
        """Load the peft adapter directory `path` as model `name`; returns its policy version
        (`version`, else a ``-v<N>`` suffix of the name as `OpenAIEngine` writes it, else the
        highest version loaded so far + 1)."""
        if not name or not path:
            raise HTTPError(400, "lora_name and lora_path are both required")
        if name == self.model_name or name in self.adapters:
            raise HTTPError(400, f"The lora adapter '{name}' has already been loaded.")
        if not Path(path).is_dir():
            raise HTTPError(404, f"no adapter directory at {path}", "not_found_error")
        if version is None:
            m = re.search(r"-v(\d+)$", name)
            version = int(m.group(1)) if m else self._top_version + 1
        with self._gen_lock:
            model = getattr(self.engine, "model", None)
            weights: str | None = name  # the peft adapter that serves `name` (None: the start weights)
            if self.ignore_adapter_loads:  # fault injection: answer as if loaded, keep the old weights
                log.warning("ignoring the load of adapter %s from %s (--ignore-adapter-loads)", name, path)
                weights = None
            elif model is None:  # e.g. ScriptedEngine: only the version moves
                self.engine.load_adapter(path, int(version))
            elif hasattr(model, "peft_config"):
                model.load_adapter(path, adapter_name=name)
            else:
                from peft import PeftModel

                self.engine.model = PeftModel.from_pretrained(model, path, adapter_name=name).eval()
            self.adapters[name] = {"path": str(path), "version": int(version), "weights": weights}
            self._top_version = max(self._top_version, int(version))
        return int(version)

    def unload_adapter(self, name: str) -> None:
        if name not in self.adapters:
            raise HTTPError(404, f"The lora adapter '{name}' cannot be found.", "not_found_error")
        with self._gen_lock:
            model = getattr(self.engine, "model", None)
            loaded = self.adapters[name]["weights"] == name
            if loaded and model is not None and hasattr(model, "peft_config") and len(model.peft_config) > 1:
                model.delete_adapter(name)
            # the last adapter stays in memory (peft cannot delete it), unreachable by name
            del self.adapters[name]

    def _generate(self, model: str, request: GenerationRequest):
        """Select the adapter `model` names, generate; (completion, adapter name or None)."""
        if model not in (self.model_name, "", None) and model not in self.adapters:
            raise HTTPError(404, f"The model `{model}` does not exist.", "not_found_error")
        adapter = model if model in self.adapters else None
        with self._gen_lock:
            peft_model = getattr(self.engine, "model", None)
            peft_model = peft_model if hasattr(peft_model, "peft_config") else None
            version = self.adapters[adapter]["version"] if adapter else self.base_version
            weights = self.adapters[adapter]["weights"] if adapter else None
            if peft_model is not None and weights:
                peft_model.set_adapter(weights)
            elif peft_model is not None and self._base_adapter:
                peft_model.set_adapter(self._base_adapter)
            if getattr(self.engine, "model", None) is None:
                self.engine.policy_version = version
            else:
                self.engine.load_adapter(None, version)  # the weights are selected: only the version
            try:
                if peft_model is not None and not weights and not self._base_adapter:
                    with peft_model.disable_adapter():
                        [completion] = self.engine.generate([request])
                else:
                    [completion] = self.engine.generate([request])
            except EngineError as exc:
                raise HTTPError(400, str(exc)) from exc
        return completion, adapter

    # ---- requests ------------------------------------------------------------------------------

    def _sampling(self, body: dict[str, Any], prompt_len: int) -> GenerationRequest:
        if int(body.get("n", 1) or 1) != 1:
            raise HTTPError(400, "n > 1 is not supported: send n requests")
        if body.get("stream"):
            raise HTTPError(400, "stream=true is not supported")
        max_new = body.get("max_completion_tokens") or body.get("max_tokens") or self.max_tokens
        room = int(getattr(self.engine, "max_context", 1 << 30)) - prompt_len
        if room < 1:
            raise HTTPError(400, f"This model's maximum context length is {room + prompt_len} tokens; the prompt "
                            f"has {prompt_len}")
        stop = body.get("stop") or ()
        temperature = body.get("temperature")
        return GenerationRequest([], min(int(max_new), room), 1.0 if temperature is None else float(temperature),
                                 float(body.get("top_p", 1.0) if body.get("top_p") is not None else 1.0),
                                 tuple([stop] if isinstance(stop, str) else stop), body.get("seed"))

    def _session(self, session: str) -> _Session:
        with self._lock:
            return self._sessions.setdefault(session, _Session())

    def _finish(self, session: str, route: str, body: dict[str, Any], prompt_ids: list[int], extends: bool,
                request: GenerationRequest, text: str | None) -> tuple[Record, Any]:
        request.prompt_ids = list(prompt_ids)
        completion, adapter = self._generate(body.get("model") or self.model_name, request)
        s = self._session(session)
        with self._lock:
            record = Record(session, len(s.records), route, body.get("model") or self.model_name, adapter,
                            int(completion.policy_version), list(prompt_ids), list(completion.token_ids),
                            [float(x) for x in completion.logprobs], completion.finish_reason,
                            request.temperature, request.top_p, extends, f"{route}-{uuid.uuid4().hex[:16]}",
                            time.time())
            s.records.append(record)
            s.ids = list(prompt_ids) + list(completion.token_ids)
            s.text = (text + self._decode(completion.token_ids)) if text is not None else ""
        self._record(record)
        return record, completion

    def _decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False) if ids else ""

    def _reply_text(self, ids: list[int]) -> str:
        eos = set(getattr(self.engine, "eos_token_ids", []) or [])
        if self.tokenizer is not None and self.tokenizer.eos_token_id is not None:
            eos.add(int(self.tokenizer.eos_token_id))
        while ids and ids[-1] in eos:
            ids = ids[:-1]
        return self._decode(ids)

    def chat(self, body: dict[str, Any], session: str) -> dict[str, Any]:
        """``/v1/chat/completions``."""
        if self.tokenizer is None:
            raise HTTPError(400, "this server has no tokenizer: only /v1/completions with token ids")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise HTTPError(400, "messages must be a non-empty list")
        try:
            text = self.tokenizer.apply_chat_template([_template_message(m) for m in messages],
                                                      tools=body.get("tools") or None, tokenize=False,
                                                      add_generation_prompt=body.get("add_generation_prompt", True),
                                                      **(body.get("chat_template_kwargs") or {}))
        except Exception as exc:  # a template error is the request's fault
            raise HTTPError(400, f"the chat template failed on these messages: {type(exc).__name__}: {exc}") from exc
        s = self._session(session)
        with self._lock:
            prev_text, prev_ids = s.text, list(s.ids)
        extends = bool(prev_text) and text.startswith(prev_text)
        if extends:
            rest = text[len(prev_text):]
            prompt_ids = prev_ids + (self.tokenizer.encode(rest, add_special_tokens=False) if rest else [])
        else:
            prompt_ids = self.tokenizer.encode(text, add_special_tokens=False)
        request = self._sampling(body, len(prompt_ids))
        record, completion = self._finish(session, "chat", body, prompt_ids, extends, request, text)
        content = self._reply_text(list(completion.token_ids))
        choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": content},
                                  "finish_reason": completion.finish_reason, "logprobs": None}
        if body.get("logprobs"):
            as_ids = bool(body.get("return_tokens_as_token_ids"))
            choice["logprobs"] = {"content": [
                {"token": f"token_id:{t}" if as_ids else (piece := self._decode([t])), "logprob": lp,
                 "bytes": None if as_ids else list(piece.encode()), "top_logprobs": []}
                for t, lp in zip(record.completion_ids, record.logprobs, strict=True)]}
        return self._response("chat.completion", record, choice, body)

    def completions(self, body: dict[str, Any], session: str) -> dict[str, Any]:
        """``/v1/completions``: a text prompt, or token ids (one prompt per request)."""
        prompt = body.get("prompt")
        if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
            prompt = prompt[0]
        if isinstance(prompt, str):
            if self.tokenizer is None:
                raise HTTPError(400, "this server has no tokenizer: send the prompt as token ids")
            prompt_ids = self.tokenizer.encode(prompt, add_special_tokens=False)
        elif isinstance(prompt, list) and prompt and all(isinstance(t, int) for t in prompt):
            prompt_ids = list(prompt)
        else:
            raise HTTPError(400, "prompt must be a string or a list of token ids (one prompt per request)")
        s = self._session(session)
        with self._lock:
            prev_ids = list(s.records[-1].prompt_ids + s.records[-1].completion_ids) if s.records else []
        extends = bool(prev_ids) and prompt_ids[:len(prev_ids)] == prev_ids
        request = self._sampling(body, len(prompt_ids))
        record, completion = self._finish(session, "completions", body, prompt_ids, extends, request, None)
        choice: dict[str, Any] = {"index": 0, "text": self._decode(record.completion_ids),
                                  "finish_reason": completion.finish_reason, "logprobs": None}
        if body.get("logprobs") is not None and body.get("logprobs") is not False:
            as_ids = bool(body.get("return_tokens_as_token_ids"))
            choice["logprobs"] = {"tokens": [f"token_id:{t}" if as_ids else self._decode([t])
                                             for t in record.completion_ids],
                                  "token_logprobs": list(record.logprobs), "top_logprobs": None, "text_offset": None}
        return self._response("text_completion", record, choice, body)

    def _response(self, kind: str, record: Record, choice: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        if body.get("return_token_ids") or body.get("return_tokens_as_token_ids"):
            choice["token_ids"] = list(record.completion_ids)
        out = {"id": record.request_id, "object": kind, "created": int(record.created), "model": record.model,
               "choices": [choice],
               "usage": {"prompt_tokens": len(record.prompt_ids), "completion_tokens": len(record.completion_ids),
                         "total_tokens": len(record.prompt_ids) + len(record.completion_ids)},
               "codegym": {"session": record.session, "index": record.index, "adapter": record.adapter,
                           "policy_version": record.policy_version, "extends": record.extends}}
        if body.get("return_token_ids"):
            out["prompt_token_ids"] = list(record.prompt_ids)
        return out

    def models(self) -> dict[str, Any]:
        root = {"object": "model", "created": 0, "owned_by": "codegym"}
        data = [{**root, "id": self.model_name, "root": self.model_name, "parent": None}]
        data += [{**root, "id": name, "root": a["path"], "parent": self.model_name, "policy_version": a["version"]}
                 for name, a in self.adapters.items()]
        return {"object": "list", "data": data}


def _template_message(m: Any) -> dict[str, Any]:
    """A chat-API message as chat templates expect it: content parts joined into text, tool-call
    arguments given as JSON strings parsed into objects."""
    if not isinstance(m, dict) or "role" not in m:
        raise HTTPError(400, "every message needs a role")
    m = dict(m)
    if isinstance(m.get("content"), list):
        m["content"] = "".join(p.get("text", "") for p in m["content"] if isinstance(p, dict))
    if m.get("content") is None:
        m["content"] = ""
    calls = []
    for call in m.get("tool_calls") or []:
        call = json.loads(json.dumps(call))
        fn = call.get("function", call)
        if isinstance(fn.get("arguments"), str):
            try:
                fn["arguments"] = json.loads(fn["arguments"])
            except json.JSONDecodeError:
                pass
        calls.append(call)
    m["tool_calls"] = calls or None
    return m


def _handler(server: CaptureServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the stdlib's name)
            log.debug("%s " + format, self.address_string(), *args)

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            n = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(n) or b"{}")
            except json.JSONDecodeError as exc:
                raise HTTPError(400, f"the body is not JSON: {exc}") from exc
            if not isinstance(body, dict):
                raise HTTPError(400, "the body must be a JSON object")
            return body

        def _session(self, body: dict[str, Any]) -> str:
            return str(self.headers.get(SESSION_HEADER) or body.get("user") or "default")

        def _route(self, method: str) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            try:
                if method == "GET" and path == "/v1/models":
                    return self._send(200, server.models())
                if method == "GET" and path in ("/health", "/v1/health"):
                    return self._send(200, {"status": "ok"})
                if path == "/v1/codegym/sessions" and method == "GET":
                    return self._send(200, {"sessions": server.sessions()})
                if path.startswith("/v1/codegym/sessions/"):
                    sid = unquote(path[len("/v1/codegym/sessions/"):])
                    if method in ("GET", "DELETE"):
                        records = server.records(sid) if method == "GET" else server.pop(sid)
                        return self._send(200, {"session": sid, "records": [r.to_dict() for r in records]})
                if method == "POST":
                    body = self._body()
                    if path == "/v1/chat/completions":
                        return self._send(200, server.chat(body, self._session(body)))
                    if path == "/v1/completions":
                        return self._send(200, server.completions(body, self._session(body)))
                    if path == "/v1/load_lora_adapter":
                        version = server.load_adapter(str(body.get("lora_name") or ""),
                                                      str(body.get("lora_path") or ""), body.get("version"))
                        return self._send(200, {"status": "ok", "lora_name": body["lora_name"],
                                                "policy_version": version})
                    if path == "/v1/unload_lora_adapter":
                        server.unload_adapter(str(body.get("lora_name") or ""))
                        return self._send(200, {"status": "ok"})
                raise HTTPError(404, f"no route {method} {path}", "not_found_error")
            except HTTPError as exc:
                self._send(exc.status, {"error": {"message": str(exc), "type": exc.kind, "code": exc.status}})
            except Exception as exc:  # a bug or a model failure: say what, keep serving
                log.exception("request failed")
                self._send(500, {"error": {"message": f"{type(exc).__name__}: {exc}", "type": "server_error",
                                           "code": 500}})

        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            self._route("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._route("POST")

        def do_DELETE(self) -> None:  # noqa: N802
            self._route("DELETE")

    return Handler


def build_engine(model: str = "tiny", *, adapter: str | None = None, device: str | None = None) -> Any:
    """A `TransformersEngine` over ``tiny`` (``tiny:small``: the bigger size), a local model
    directory or a hub id, optionally with a peft adapter."""
    from codegym.agents.engines import TransformersEngine

    if model == "tiny" or model.startswith("tiny:"):
        from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer

        tok = build_tiny_tokenizer()
        base = build_tiny_model(tok, size=model.split(":", 1)[1] if ":" in model else "tiny")
        if adapter:
            from peft import PeftModel

            base = PeftModel.from_pretrained(base, adapter).eval()
        return TransformersEngine(base, tok)
    return TransformersEngine.from_pretrained(model, adapter=adapter, device=device)


__all__ = ["HOST", "SESSION_HEADER", "CaptureServer", "HTTPError", "Record", "build_engine"]
