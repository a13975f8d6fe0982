"""The real `skyrl_gym`: `make("codegym", ...)` runs a codegym episode in Docker."""

from __future__ import annotations

import pytest

skyrl_gym = pytest.importorskip("skyrl_gym")

import codegym.integrations.skyrl  # noqa: E402,F401  (registers "codegym")
from codegym.envs.parsing import format_tool_call  # noqa: E402
from codegym.toolcall import ToolCall  # noqa: E402

FIX = format_tool_call(ToolCall("str_replace", {"path": "calc.py", "old_str": "a - b", "new_str": "a + b"}))


@pytest.mark.docker
def test_make_codegym_runs_an_episode_to_its_reward():
    env = skyrl_gym.make("codegym", env_config={"env_id": "codegym/Toy-v0", "backend": "docker"},
                         extras={"task_id": "toy-add-typo"})
    try:
        prompt, meta = env.init([{"role": "user", "content": "(the dataset's placeholder)"}])
        assert prompt[0]["role"] == "system" and "calc.py" in prompt[-1]["content"]
        assert meta["task_id"] == "toy-add-typo" and {t["function"]["name"] for t in meta["tools"]} >= {"bash"}
        out = env.step("Nothing here is a tool call.")
        assert not out["done"] and out["observations"][0]["content"].startswith("Error:")
        assert out["metadata"]["parse_error"]
        out = env.step(FIX)
        assert not out["done"] and out["reward"] == 0.0
        assert [m["role"] for m in out["observations"]] == ["tool"] and "Edited calc.py" in out["observations"][0]["content"]
        out = env.step("Done.\n```bash\necho done\n```")  # any fenced block is a bash call
        out = env.step(format_tool_call(ToolCall("submit", {})))
        assert out["done"] and out["reward"] == 1.0
        meta = out["metadata"]
        assert meta["stop_reason"] == "submitted" and meta["train_mask"] is True
        assert meta["rewards"]["correctness"] == 1.0 and set(meta["tests"].values()) == {"passed"}
        assert env.get_metrics()["correctness"] == 1.0
    finally:
        env.close()


@pytest.mark.docker
def test_the_task_id_may_come_from_extra_info_and_truncation_is_done():
    from omegaconf import OmegaConf  # SkyRL hands env_config over as a DictConfig

    config = OmegaConf.create({"env_id": "codegym/Toy-v0", "backend": "docker", "max_turns": 1})
    env = skyrl_gym.make("codegym", env_config=config,
                         extras={"extra_info": {"task_id": "toy-add-typo"}})
    try:
        env.init([])
        out = env.step(format_tool_call(ToolCall("bash", {"command": "ls"})))
        assert out["done"] and out["metadata"]["stop_reason"] == "max_turns" and out["reward"] == 0.0
    finally:
        env.close()


def test_a_row_without_a_task_id_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="task_id"):
        skyrl_gym.make("codegym", env_config={"env_id": "codegym/Toy-v0"}, extras={"reward_spec": {}})
