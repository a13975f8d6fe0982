"""Training throughput on a GPU: a 0.5B-class model built from its config with LoRA (policy + critic).

    .venv/bin/python benchmarks/train_gpu.py [--model Qwen/Qwen2.5-0.5B-Instruct] [--seq 2048] [--rows 16]

No weights are downloaded: the model is built from a Qwen2.5-0.5B-shaped config (24 layers,
hidden 896, vocab 151936; or the named model's config when it is cached locally) with random
weights in bfloat16, LoRA r=16 on every linear layer, a shared-base critic adapter with an fp32
value head, gradient checkpointing. It times the trainer's own update (`Trainer._update`: old
logprobs + values, then PPO-clip and the value loss over micro-batches packed by tokens) on a
synthetic batch of `rows` sequences of `seq` tokens with `completion` completion tokens each,
and prints training tokens/s (all tokens forwarded and backpropagated, both adapters) and peak
memory. Finishes in a few minutes; exits with a message when no GPU is present.
"""

from __future__ import annotations

import argparse
import json
import time


def qwen05_config():
    from transformers import Qwen2Config

    return Qwen2Config(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                       num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                       rope_theta=1_000_000.0, tie_word_embeddings=True)


def main() -> None:
    import torch

    p = argparse.ArgumentParser()
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--completion", type=int, default=512)
    p.add_argument("--rows", type=int, default=16)
    p.add_argument("--micro-batch-tokens", type=int, default=16384)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("no GPU: benchmarks/train_gpu.py measures GPU training throughput; skipped")
        return
    from peft import get_peft_model
    from transformers import AutoModelForCausalLM

    from codegym.trainer.config import ModelConfig, config_from_dict
    from codegym.trainer.data import Episode, Segment, Step, to_sequences
    from codegym.trainer.models import PolicyCritic, _lora_config

    mcfg = ModelConfig(base="qwen0.5b-config", dtype="bfloat16", device="cuda", gradient_checkpointing=True)
    torch.manual_seed(0)
    base = AutoModelForCausalLM.from_config(qwen05_config(), dtype=torch.bfloat16)
    for q in base.parameters():
        q.requires_grad_(False)
    base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    base.enable_input_require_grads()
    model = get_peft_model(base, _lora_config(mcfg), adapter_name="policy")
    model.add_adapter("critic", _lora_config(mcfg))
    head = torch.nn.Linear(896, 1, dtype=torch.float32)
    model, head = model.cuda(), head.cuda()

    class Tok:
        pad_token_id = 0

    models = PolicyCritic(model, Tok(), "shared", head)
    cfg = config_from_dict({"algorithm": {"name": "ppo", "epochs": 1, "mini_batches": 1,
                                          "micro_batch_tokens": args.micro_batch_tokens}})
    g = torch.Generator().manual_seed(0)
    eps = []
    for i in range(args.rows):
        prompt = torch.randint(10, 150000, (args.seq - args.completion,), generator=g).tolist()
        comp = torch.randint(10, 150000, (args.completion,), generator=g).tolist()
        eps.append(Episode(task_id="t", group_id=f"g{i // 4}", episode_id=f"e{i}", reward=float(i % 2),
                           segments=[Segment(prompt, [Step(comp, [-1.0] * len(comp))])]))
    batch = to_sequences(eps, 0)

    class Shim:  # just what Trainer._update touches
        pass

    from codegym.trainer.loop import Trainer

    t = Shim()
    t.cfg, t.models = cfg, models
    t.policy_opt = torch.optim.AdamW(models.policy_parameters(), lr=1e-5)
    t.policy_sched = torch.optim.lr_scheduler.LambdaLR(t.policy_opt, lambda s: 1.0)
    t.critic_opt = torch.optim.AdamW(models.critic_parameters(), lr=1e-5)
    t.critic_sched = torch.optim.lr_scheduler.LambdaLR(t.critic_opt, lambda s: 1.0)
    t._score = Trainer._score.__get__(t)
    update = Trainer._update.__get__(t)
    update(batch, 0)  # warm-up
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    times = []
    for k in range(args.repeats):
        t0 = time.monotonic()
        m = update(batch, k + 1)
        torch.cuda.synchronize()
        times.append(time.monotonic() - t0)
    tokens = args.rows * args.seq
    best = min(times)
    result = {"rows": args.rows, "seq": args.seq, "tokens_per_update": tokens, "update_s": best,
              "tokens_per_s_update": tokens / best, "train_tokens_per_s": m["throughput/train_tokens_per_s"],
              "peak_gib": torch.cuda.max_memory_allocated() / 2**30, "gpu": torch.cuda.get_device_name()}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
