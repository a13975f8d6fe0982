"""The tiny model and tokenizer, built once per test session (no hub, no network)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tok():
    from codegym.agents.tiny import build_tiny_tokenizer

    return build_tiny_tokenizer()


@pytest.fixture(scope="session")
def tiny_model(tok):
    from codegym.agents.tiny import build_tiny_model

    return build_tiny_model(tok)


@pytest.fixture
def engine(tiny_model, tok):
    from codegym.agents.engines import TransformersEngine

    return TransformersEngine(tiny_model, tok)


class _OpenAIHandlerState:
    def __init__(self, engine, tokenizer, mode: str, chat_reply):
        self.engine, self.tokenizer, self.mode, self.chat_reply = engine, tokenizer, mode, chat_reply
        self.requests: list[tuple[str, dict]] = []


def _make_handler(state):
    import json
    from http.server import BaseHTTPRequestHandler

    from codegym.agents.engines import GenerationRequest

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def _send(self, code, payload):
            body = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):  # noqa: N802 (http.server's naming)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append((self.path, body))
            if self.path == "/v1/completions":
                prompt = body["prompt"]
                if isinstance(prompt, str):
                    prompt = state.tokenizer.encode(prompt, add_special_tokens=False)
                [c] = state.engine.generate([GenerationRequest(prompt, body.get("max_tokens", 16),
                                                               body.get("temperature", 1.0), body.get("top_p", 1.0),
                                                               tuple(body.get("stop") or ()), body.get("seed"))])
                tokens = ([f"token_id:{t}" for t in c.token_ids] if body.get("return_tokens_as_token_ids")
                          and state.mode != "text_only" else [state.tokenizer.decode([t]) for t in c.token_ids])
                choice = {"index": 0, "text": c.text, "finish_reason": c.finish_reason,
                          "logprobs": {"tokens": tokens, "token_logprobs": c.logprobs}}
                if body.get("return_token_ids") and state.mode == "token_ids":
                    choice["token_ids"], choice["prompt_token_ids"] = c.token_ids, prompt
                return self._send(200, {"id": "cmpl-1", "object": "text_completion", "choices": [choice]})
            if self.path == "/v1/chat/completions":
                if state.chat_reply is not None:
                    message = {"role": "assistant", **state.chat_reply}
                else:
                    text = state.tokenizer.apply_chat_template(body["messages"], tokenize=False,
                                                               add_generation_prompt=True)
                    ids = state.tokenizer.encode(text, add_special_tokens=False)
                    [c] = state.engine.generate([GenerationRequest(ids, body.get("max_tokens", 16), 0.0)])
                    message = {"role": "assistant", "content": state.tokenizer.decode(c.token_ids, skip_special_tokens=True)}
                return self._send(200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
            if self.path in ("/v1/load_lora_adapter", "/v1/unload_lora_adapter"):
                return self._send(200, {})
            return self._send(404, {"error": {"message": f"no route {self.path}"}})

    return Handler


@pytest.fixture
def openai_server(engine, tok):
    """A factory: start a small OpenAI-compatible server on 127.0.0.1, backed by the tiny engine.

    An in-process fake of *other* servers' reply formats (older vLLM, servers without token ids,
    scripted chat replies) for `OpenAIEngine`'s fallbacks, which `codegym serve` does not emulate.
    Tests that need a real server in its own process use `codegym serve` itself: the
    `codegym_serve` fixture of tests/trainer/conftest.py.

    `mode`: "token_ids" (vLLM's return_token_ids), "as_token_ids" (only "token_id:N" strings),
    "text_only" (neither). Each server stops at the end of the test, or after 120 s on its own.
    """
    import threading
    from http.server import ThreadingHTTPServer

    servers = []

    def start(mode: str = "token_ids", chat_reply=None):
        state = _OpenAIHandlerState(engine, tok, mode, chat_reply)
        server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(state))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        timer = threading.Timer(120, server.shutdown)
        timer.daemon = True
        timer.start()
        servers.append((server, timer))
        return f"http://127.0.0.1:{server.server_address[1]}/v1", state

    yield start
    for server, timer in servers:
        timer.cancel()
        server.shutdown()
        server.server_close()
