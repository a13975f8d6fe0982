"""Make an env, step it by hand, print what comes back.

    .venv/bin/python examples/quickstart_env.py
"""

import json

import gymnasium as gym

import codegym  # noqa: F401  (registers the codegym/* ids)


def tool_call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


env = gym.make("codegym/Toy-v0")
obs, info = env.reset(seed=0, options={"task_id": "toy-max-of"})
print("task:", info["task_id"], "| tools:", [t["function"]["name"] for t in info["tools"]])
print(obs[-1]["content"], "\n")

for action in [
    tool_call("view", path="stats.py"),
    "I think the bug is here.",  # no tool call: an error observation, the episode goes on
    tool_call("str_replace", path="stats.py", old_str="min(values)", new_str="max(values)"),
    tool_call("submit"),
]:
    obs, reward, terminated, truncated, info = env.step(action)
    for message in info["new_messages"]:
        print(f"[{message['role']}] {message['content'][:200]}")
    print(f"  -> reward={reward} terminated={terminated} truncated={truncated} state_key={info.get('state_key')}\n")

print("stop reason:", info["stop_reason"], "| rewards:", info["rewards"], "| tests:", info["tests"])
env.close()
