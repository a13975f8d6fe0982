"""A small OpenAI-compatible server in its own process, serving the tiny model with runtime LoRA
loading (vLLM's API), for the trainer's engine tests until `codegym serve` exists.

    python tests/trainer/lora_server.py --lora-r 4 --lora-alpha 8 [--ignore-loads]

It prints ``PORT <n>`` once it listens on 127.0.0.1. ``/v1/completions`` takes token ids and
returns token ids and logprobs; ``/v1/load_lora_adapter`` loads the adapter directory into the
served model, or, with ``--ignore-loads``, answers 200 and keeps the old weights (the stale
server the adapter-sync probe must catch). It exits after ``--lifetime`` seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lora-r", type=int, default=4)
    ap.add_argument("--lora-alpha", type=int, default=8)
    ap.add_argument("--ignore-loads", action="store_true")
    ap.add_argument("--lifetime", type=float, default=600)
    args = ap.parse_args()

    import torch

    from codegym.agents.engines import GenerationRequest, TransformersEngine
    from codegym.trainer.config import ModelConfig
    from codegym.trainer.models import build_models

    torch.set_num_threads(1)
    models = build_models(ModelConfig(lora_r=args.lora_r, lora_alpha=args.lora_alpha, device="cpu"), critic="none")
    engine = TransformersEngine(models.model, models.tokenizer, adapter_name="policy")
    loads: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):  # quiet
            pass

        def _send(self, code: int, payload: dict) -> None:
            body = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path == "/v1/completions":
                [c] = engine.generate([GenerationRequest(list(body["prompt"]), body.get("max_tokens", 16),
                                                         body.get("temperature", 1.0), body.get("top_p", 1.0),
                                                         tuple(body.get("stop") or ()), body.get("seed"))])
                choice = {"index": 0, "text": c.text, "finish_reason": c.finish_reason, "token_ids": c.token_ids,
                          "logprobs": {"tokens": [f"token_id:{t}" for t in c.token_ids],
                                       "token_logprobs": c.logprobs}}
                return self._send(200, {"object": "text_completion", "model": body.get("model"), "choices": [choice]})
            if self.path == "/v1/load_lora_adapter":
                loads.append(body)
                if not args.ignore_loads:
                    engine.load_adapter(body["lora_path"], len(loads))
                return self._send(200, {})
            if self.path == "/v1/unload_lora_adapter":
                return self._send(200, {})
            return self._send(404, {"error": {"message": f"no route {self.path}"}})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    timer = threading.Timer(args.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever(poll_interval=0.05)
    sys.exit(0)


if __name__ == "__main__":
    main()
