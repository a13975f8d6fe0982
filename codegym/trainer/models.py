"""The policy and the critic: LoRA adapters on one frozen base, plus an fp32 value head.

    models = build_models(ModelConfig(base="tiny"), critic="shared")
    lp = models.policy_logprobs(ids, mask, temperature=1.0)     # [B, T], aligned like SequenceBatch.old_logprobs
    v = models.values(ids, mask)                                # [B, T], V(state before token t)
    ref = models.ref_logprobs(ids, mask)                        # the policy the run started from

The policy is the peft adapter ``policy``. The critic (``critic="shared"``) is a second adapter
``critic`` on the same frozen base, with a float32 linear value head on its last hidden state:
one base in memory instead of two (no surveyed framework shares it; each loads a second model).
peft does not mix adapters inside one batch in training mode, so a micro-batch costs two
forward passes, one per adapter. ``critic="separate"`` loads a second base for the critic
instead.

The KL reference is the policy the run started from. With ``model.init_adapter`` (a warm start,
``codegym train --init-adapter``) that is a frozen copy of the init adapter, a third adapter
``reference`` on the same base (a few MB, never trained, not in checkpoints: a resumed run
rebuilds it from the same directory); without one, a fresh policy adapter is the identity
(LoRA's B = 0), so the reference is the base with adapters disabled.

Alignment: position ``t`` of `policy_logprobs` is ``log_softmax(logits[t-1] / T)[ids[t]]`` and of
`values` is ``head(h[t-1])``, the value of the state in which token ``t`` was sampled; position
0 is 0. That is the layout of `SequenceBatch.old_logprobs` and of GAE's values.

CPU: float32. GPU: bfloat16 weights (the value head and all logprob math in float32) and optional
gradient checkpointing. The adapter-sync probe's tolerance follows the dtype (`probe_tolerance`).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch
from torch import nn

from .config import ModelConfig

POLICY, CRITIC, REFERENCE = "policy", "critic", "reference"

#: mean |logprob difference| the adapter-sync probe allows between the engine (incremental decoding
#: with a KV cache) and the trainer (one teacher-forced pass) over the same weights. In float32 the
#: trainer and a separate `codegym serve` process agree to 3e-8 to 5e-7 (tiny, tiny:small, a
#: warm-started tiny); the gap grows with depth and sharper logits (up to 3.2e-6 on a random
#: Qwen2-0.5B-shaped model with a 4x sharpened head), so 1e-4 keeps a 30x margin there. In bfloat16
#: (8 mantissa bits) the different summation orders alone give 1e-4 to 4e-3 on a warm-started
#: model, whose sharper logits amplify the rounding. A stale or base adapter after one RL update
#: (lr 1e-2) differs by 5e-2 to 1.4e-1, so these still catch it (docs/training.md).
PROBE_TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-5, torch.bfloat16: 2e-2, torch.float16: 1e-2}


def probe_tolerance(dtype: torch.dtype) -> float:
    """The adapter-sync probe tolerance for weights in ``dtype`` (see `PROBE_TOLERANCE`)."""
    return PROBE_TOLERANCE.get(dtype, 2e-2)


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def resolve_dtype(dtype: str, device: torch.device) -> torch.dtype:
    if dtype == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16}[dtype]


def load_base(cfg: ModelConfig, tokenizer: Any = None, dtype: torch.dtype = torch.float32) -> tuple[Any, Any]:
    """(model, tokenizer) for `cfg.base`: the tiny model, a local directory or a hub id."""
    if cfg.base == "tiny" or cfg.base.startswith("tiny:"):
        from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer

        tok = tokenizer or build_tiny_tokenizer()
        size = cfg.base.split(":", 1)[1] if ":" in cfg.base else "tiny"
        return build_tiny_model(tok, size=size, seed=cfg.tiny_seed).to(dtype), tok
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    tok = tokenizer or _load_tokenizer(cfg.base, AutoTokenizer)
    if cfg.config_only:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(cfg.tiny_seed)
            model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(cfg.base), dtype=dtype)
    else:
        model = AutoModelForCausalLM.from_pretrained(cfg.base, dtype=dtype)
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    return model, tok


def _load_tokenizer(base: str, auto: Any) -> Any:
    """The tokenizer of `base`. A directory saved from a plain fast tokenizer (e.g. a warm-started tiny
    base, `codegym sft --full`) is loaded as exactly that: `AutoTokenizer` would pick the model type's
    class (Qwen2Tokenizer), whose pre-tokenizer splits text differently from the one the model learned."""
    import json

    config = Path(base) / "tokenizer_config.json"
    if config.is_file() and json.loads(config.read_text()).get("tokenizer_class") in (
            "TokenizersBackend", "PreTrainedTokenizerFast"):
        from transformers import PreTrainedTokenizerFast

        return PreTrainedTokenizerFast.from_pretrained(base)
    return auto.from_pretrained(base)


def _lora_config(cfg: ModelConfig):
    from peft import LoraConfig

    return LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
                      target_modules=list(cfg.target_modules), task_type="CAUSAL_LM", bias="none")


class PolicyCritic:
    """The trainer's models. Build with `build_models`; see the module docstring."""

    def __init__(self, model: Any, tokenizer: Any, critic: str, value_head: nn.Module | None,
                 critic_model: Any = None):
        self.model, self.tokenizer, self.critic = model, tokenizer, critic
        self.value_head, self.critic_model = value_head, critic_model
        self.device = next(model.parameters()).device
        self.dtype = model.get_base_model().dtype
        self.use_policy()

    @property
    def has_reference_adapter(self) -> bool:
        """Whether the KL reference is a frozen adapter (the init adapter) rather than the bare base."""
        return REFERENCE in self.model.peft_config

    @property
    def probe_tolerance(self) -> float:
        """The adapter-sync probe tolerance for this model's weights dtype."""
        return probe_tolerance(self.dtype)

    # ---- adapters ------------------------------------------------------------------------------

    def use_policy(self) -> None:
        """Make `policy` the active adapter (the engine serves this model)."""
        self._set(self.model, POLICY)

    def _set(self, model: Any, name: str) -> None:
        model.set_adapter(name)
        for n, p in model.named_parameters():  # peft freezes inactive adapters; our optimizers decide
            if "lora_" in n:
                p.requires_grad_(f".{REFERENCE}." not in n)  # the reference stays frozen

    def set_reference_adapter(self, path: str | Path) -> None:
        """Make a frozen copy of the adapter at ``path`` the KL reference (adapter ``reference``)."""
        from peft import set_peft_model_state_dict

        from codegym.agents.engines.transformers_engine import load_adapter_state

        if not self.has_reference_adapter:
            with torch.random.fork_rng(devices=[]):  # its random init is overwritten; leave the RNG alone
                self.model.add_adapter(REFERENCE, copy.deepcopy(self.model.peft_config[POLICY]))
        result = set_peft_model_state_dict(self.model, load_adapter_state(path), adapter_name=REFERENCE)
        unexpected = [k for k in getattr(result, "unexpected_keys", []) if "lora_" in k]
        if unexpected:
            raise ValueError(f"adapter {path} does not fit this base (e.g. {unexpected[0]})")
        for p in self._reference_parameters():
            p.requires_grad_(False)
        self.use_policy()

    def _reference_parameters(self) -> list[nn.Parameter]:
        return [p for n, p in self.model.named_parameters() if "lora_" in n and f".{REFERENCE}." in n]

    def policy_parameters(self) -> list[nn.Parameter]:
        return [p for n, p in self.model.named_parameters() if "lora_" in n and f".{POLICY}." in n]

    def critic_parameters(self) -> list[nn.Parameter]:
        if self.critic == "none":
            return []
        src = self.critic_model if self.critic == "separate" else self.model
        params = [p for n, p in src.named_parameters() if "lora_" in n and f".{CRITIC}." in n]
        return params + list(self.value_head.parameters())

    # ---- forward passes ------------------------------------------------------------------------

    def policy_logprobs(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                        temperature: float = 1.0) -> torch.Tensor:
        """``[B, T]`` float32 logprobs of each token given the ones before it (0 at position 0)."""
        self.use_policy()
        logits = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits
        return token_logprobs(logits, input_ids, temperature)

    def ref_logprobs(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                     temperature: float = 1.0) -> torch.Tensor:
        """Logprobs of the KL reference, the policy the run started from, without gradients: the
        frozen init adapter when there is one, else the base with every adapter disabled."""
        with torch.no_grad():
            if not self.has_reference_adapter:
                with self.model.disable_adapter():
                    logits = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits
                return token_logprobs(logits, input_ids, temperature)
            self.model.set_adapter(REFERENCE)
            try:
                logits = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits
            finally:
                self.use_policy()
            return token_logprobs(logits, input_ids, temperature)

    def values(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """``[B, T]`` float32 values; position t is the value of the state before token t."""
        if self.critic == "none":
            raise RuntimeError("this trainer has no critic (model.critic: none)")
        model = self.critic_model if self.critic == "separate" else self.model
        self._set(model, CRITIC)
        try:
            base = model.get_base_model()
            decoder = base.get_decoder() if hasattr(base, "get_decoder") else None
            if decoder is not None:
                hidden = decoder(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
            else:
                hidden = model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True,
                               use_cache=False).hidden_states[-1]
        finally:
            if model is self.model:
                self.use_policy()
        v = self.value_head(hidden[:, :-1].float()).squeeze(-1)
        return torch.cat([torch.zeros_like(v[:, :1]), v], dim=1)

    def train(self, mode: bool = True) -> None:
        for m in (self.model, self.critic_model, self.value_head):
            if m is not None:
                m.train(mode)

    # ---- state ---------------------------------------------------------------------------------

    def trainable_state(self) -> dict[str, torch.Tensor]:
        """Every trained tensor (both adapters, the value head), exact, on the CPU (not the frozen
        reference: it is rebuilt from ``model.init_adapter``)."""
        state = {f"model.{n}": p.detach().cpu().clone() for n, p in self.model.named_parameters()
                 if "lora_" in n and f".{REFERENCE}." not in n}
        if self.critic_model is not None:
            state.update({f"critic_model.{n}": p.detach().cpu().clone()
                          for n, p in self.critic_model.named_parameters() if "lora_" in n})
        if self.value_head is not None:
            state.update({f"value_head.{n}": t.detach().cpu().clone() for n, t in self.value_head.state_dict().items()})
        return state

    def load_trainable_state(self, state: dict[str, torch.Tensor]) -> None:
        targets = {f"model.{n}": p for n, p in self.model.named_parameters()
                   if "lora_" in n and f".{REFERENCE}." not in n}
        if self.critic_model is not None:
            targets.update({f"critic_model.{n}": p for n, p in self.critic_model.named_parameters() if "lora_" in n})
        if self.value_head is not None:
            targets.update({f"value_head.{n}": p for n, p in self.value_head.named_parameters()})
        missing = sorted(set(targets) - set(state))
        unexpected = sorted(set(state) - set(targets))
        if missing or unexpected:
            raise ValueError(f"checkpoint does not match the models: missing {missing[:3]}, unexpected "
                             f"{unexpected[:3]} (a different model.critic or LoRA config?)")
        with torch.no_grad():
            for k, p in targets.items():
                p.copy_(state[k].to(p.device, p.dtype))

    def policy_adapter_state(self) -> dict[str, torch.Tensor]:
        from peft import get_peft_model_state_dict

        return get_peft_model_state_dict(self.model, adapter_name=POLICY)

    def save_policy_adapter(self, path: str | Path) -> Path:
        """A peft adapter directory (``adapter_model.safetensors``) usable by `TransformersEngine.from_pretrained`,
        `load_adapter` and `model.init_adapter`."""
        from safetensors.torch import save_file

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        state = {k: v.detach().cpu().contiguous() for k, v in self.policy_adapter_state().items()}
        save_file(state, str(path / "adapter_model.safetensors"))
        self.model.peft_config[POLICY].save_pretrained(str(path))
        return path

    def load_policy_adapter(self, path: str | Path) -> None:
        from peft import set_peft_model_state_dict

        from codegym.agents.engines.transformers_engine import load_adapter_state

        result = set_peft_model_state_dict(self.model, load_adapter_state(path), adapter_name=POLICY)
        unexpected = [k for k in getattr(result, "unexpected_keys", []) if "lora_" in k]
        if unexpected:
            raise ValueError(f"adapter {path} does not fit this base (e.g. {unexpected[0]})")
        self.use_policy()


def token_logprobs(logits: torch.Tensor, input_ids: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """``out[:, t] = log_softmax(logits[:, t-1] / T)[input_ids[:, t]]``, ``out[:, 0] = 0`` (float32)."""
    x = logits[:, :-1].float()
    if temperature > 0:
        x = x / temperature
    tgt = input_ids[:, 1:]
    lp = x.gather(-1, tgt.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(x, dim=-1)
    return torch.cat([torch.zeros_like(lp[:, :1]), lp], dim=1)


def build_models(cfg: ModelConfig, critic: str | None = None, tokenizer: Any = None) -> PolicyCritic:
    """The base with LoRA adapter `policy` (and `critic` + value head), on cfg.device in cfg.dtype."""
    from peft import get_peft_model

    critic = critic or ("none" if cfg.critic == "auto" else cfg.critic)
    device = resolve_device(cfg.device)
    dtype = resolve_dtype(cfg.dtype, device)
    base, tok = load_base(cfg, tokenizer, dtype)
    for p in base.parameters():
        p.requires_grad_(False)
    if cfg.gradient_checkpointing:
        base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        base.enable_input_require_grads()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(cfg.tiny_seed + 1)  # LoRA init is reproducible and leaves the global RNG alone
        model = get_peft_model(base, _lora_config(cfg), adapter_name=POLICY)
        critic_model, head = None, None
        if critic == "shared":
            model.add_adapter(CRITIC, _lora_config(cfg))
        elif critic == "separate":
            base2, _ = load_base(cfg, tok, dtype)
            for p in base2.parameters():
                p.requires_grad_(False)
            critic_model = get_peft_model(base2, _lora_config(cfg), adapter_name=CRITIC).to(device)
        if critic in ("shared", "separate"):
            head = nn.Linear(base.config.hidden_size, 1, dtype=torch.float32)
            nn.init.normal_(head.weight, std=1.0 / (base.config.hidden_size + 1) ** 0.5)
            nn.init.zeros_(head.bias)
            head = head.to(device)
    model = model.to(device)
    models = PolicyCritic(model, tok, critic, head, critic_model)
    if cfg.init_adapter:  # the warm start: the policy starts there, and the KL reference stays there
        models.load_policy_adapter(cfg.init_adapter)
        models.set_reference_adapter(cfg.init_adapter)
    return models


@contextlib.contextmanager
def eval_mode(models: PolicyCritic) -> Iterator[None]:
    was = models.model.training
    models.train(False)
    try:
        yield
    finally:
        models.train(was)
