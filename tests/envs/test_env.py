"""`CodingEnv` end to end in real Docker sandboxes: tools, parsing errors, stop reasons,
state keys, forking, threads, and Gymnasium's own checker."""

from __future__ import annotations

import json
import threading

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401  (registers the ids)
from codegym.agents import OracleAgent, ScriptedAgent
from codegym.envs import CodingEnv, run_episode, run_episodes
from codegym.tasks.loader import load_tasks, write_tasks_jsonl
from codegym.toolcall import ToolCall

TOY = load_tasks("toy")


def call(name, **arguments):
    return '<tool_call>' + json.dumps({"name": name, "arguments": arguments}) + '</tool_call>'


@pytest.fixture
def env():
    e = CodingEnv("toy", backend="docker", max_turns=8)
    yield e
    e.close()


def test_reset_gives_system_prompt_task_and_tools(env):
    obs, info = env.reset(seed=0, options={"task_id": "toy-max-of"})
    assert [m["role"] for m in obs] == ["system", "user"]
    assert "<tool_call>" in obs[0]["content"] and "max_of" in obs[1]["content"]
    assert {t["function"]["name"] for t in info["tools"]} == {"bash", "view", "create", "str_replace",
                                                              "run_tests", "submit"}
    assert info["new_messages"] == obs and info["state_key"].startswith("ws:")
    assert env.observation_space.contains(obs)


def test_reset_picks_tasks_with_np_random(env):
    ids = [env.reset(seed=s)[1]["task_id"] for s in range(6)]
    again = [env.reset(seed=s)[1]["task_id"] for s in range(6)]
    assert ids == again and len(set(ids)) > 1


def test_tools_view_create_replace_and_bash(env):
    env.reset(options={"task_id": "toy-max-of"})
    obs, r, term, trunc, info = env.step(call("view", path="stats.py"))
    assert info["new_messages"][-1] == {"role": "tool", "name": "view",
                                        "content": "1\tdef max_of(values):\n2\t    return min(values)"}
    assert obs[-2]["role"] == "assistant" and obs[-1]["role"] == "tool" and (r, term, trunc) == (0.0, False, False)
    *_, info = env.step(call("view", path="stats.py", start_line=2, end_line=2))
    assert info["new_messages"][-1]["content"] == "2\t    return min(values)"
    *_, info = env.step(call("view", path="."))
    assert "./stats.py" in info["new_messages"][-1]["content"] and ".git/" not in info["new_messages"][-1]["content"]
    *_, info = env.step(call("str_replace", path="stats.py", old_str="values", new_str="vals"))
    assert "occurs 2 times" in info["new_messages"][-1]["content"]
    *_, info = env.step(call("str_replace", path="stats.py", old_str="min(values)", new_str="max(values)"))
    assert "return max(values)" in info["new_messages"][-1]["content"]
    *_, info = env.step(call("create", path="notes/todo.txt", file_text="ünïcode ✓\n"))
    assert info["new_messages"][-1]["content"].startswith("Created notes/todo.txt")
    *_, info = env.step(call("bash", command="cat notes/todo.txt; exit 3"))
    assert info["new_messages"][-1]["content"] == "ünïcode ✓\n"
    obs, reward, term, trunc, info = env.step(call("submit"))
    assert term and not trunc and info["stop_reason"] == "submitted" and reward == 1.0
    assert info["rewards"]["correctness"] == 1.0 and info["tests"] == {"tests/test_task.py::test_max_of": "passed"}
    assert info["train_mask"] is True and info["timing"]["grade_s"] > 0


def test_run_tests_runs_visible_tests_only(env):
    env.reset(options={"task_id": "toy-add-typo"})
    *_, info = env.step(call("run_tests"))
    assert "passed" in info["new_messages"][-1]["content"]
    *_, info = env.step(call("run_tests", paths=["tests/test_task.py"]))
    assert "visible tests only" in info["new_messages"][-1]["content"]
    *_, info = env.step(call("bash", command="ls tests"))
    assert "test_task.py" not in info["new_messages"][-1]["content"]  # hidden until grading


def test_malformed_calls_cost_a_turn_and_never_touch_the_sandbox(env):
    env.reset(options={"task_id": "toy-max-of"})
    calls = []
    real_exec = env.sandbox.exec
    env.sandbox.exec = lambda *a, **k: calls.append(a) or real_exec(*a, **k)
    key = env.last_state_key
    for bad, message in [("no call here", "no tool call found"),
                         ('<tool_call>{"name": "bash"</tool_call>', "invalid JSON"),
                         (call("bash"), "missing required argument"),
                         (call("teleport", to="mars"), "unknown tool")]:
        obs, reward, term, trunc, info = env.step(bad)
        assert message in info["parse_error"] and info["new_messages"][-1]["role"] == "user"
        assert info["new_messages"][-1]["content"].startswith("Error:") and info["tool_call"] is None
        assert info["state_key"] == key
    assert calls == [] and env.turn == 4
    env.sandbox.exec = real_exec


def test_parse_error_limit_ends_the_episode():
    e = CodingEnv("toy", backend="docker", parse_error_limit=2)
    e.reset(options={"task_id": "toy-max-of"})
    e.step("nothing")
    obs, reward, term, trunc, info = e.step("still nothing")
    assert term and info["stop_reason"] == "parse_error_limit" and info["rewards"]["format"] == 0.0
    e.close()


def test_max_turns_truncates_and_still_grades():
    e = CodingEnv("toy", backend="docker", max_turns=2)
    e.reset(options={"task_id": "toy-max-of"})
    e.step(call("bash", command="sed -i s/min/max/ stats.py"))
    obs, reward, term, trunc, info = e.step(call("bash", command="true"))
    assert trunc and not term and info["stop_reason"] == "max_turns" and reward == 1.0
    with pytest.raises(RuntimeError, match="reset"):
        e.step(call("submit"))
    e.close()


def test_wall_clock_truncates():
    e = CodingEnv("toy", backend="docker", wall_clock_s=0.5)
    e.reset(options={"task_id": "toy-max-of"})
    obs, reward, term, trunc, info = e.step(call("bash", command="sleep 1"))
    assert trunc and info["stop_reason"] == "wall_clock"
    e.close()


def test_long_outputs_and_runaway_commands_become_observations(env):
    env.reset(options={"task_id": "toy-max-of"})
    *_, info = env.step(call("bash", command="seq 1 200000"))
    content = info["new_messages"][-1]["content"]
    assert len(content) < 11_000 and content.startswith("1\n2\n") and "elided" in content
    *_, info = env.step(call("bash", command="sleep 30", timeout=1))
    assert "timed out after 1 s" in info["new_messages"][-1]["content"]


def test_a_dead_sandbox_ends_the_episode_masked(env):
    env.reset(options={"task_id": "toy-max-of"})
    env.sandbox.container.kill()
    obs, reward, term, trunc, info = env.step(call("bash", command="ls"))
    assert info["stop_reason"] == "sandbox_error" and info["train_mask"] is False and trunc
    assert "is gone" in info["sandbox_error"]  # a masked episode says why (it said nothing: the soak)
    assert env.reset(options={"task_id": "toy-max-of"})[0]  # the next episode is fine


def test_state_keys_follow_the_workspace(env):
    _, info = env.reset(options={"task_id": "toy-max-of"})
    k0 = info["state_key"]
    *_, info = env.step(call("view", path="stats.py"))
    assert info["state_key"] == k0
    *_, info = env.step(call("bash", command="echo x > new.txt"))
    k1 = info["state_key"]
    assert k1 != k0
    *_, info = env.step(call("bash", command="rm new.txt"))
    assert info["state_key"] == k0
    # another env instance, same task, same start: same key
    other = CodingEnv("toy", backend="docker")
    assert other.reset(options={"task_id": "toy-max-of"})[1]["state_key"] == k0
    other.close()


def test_observation_and_custom_state_keys():
    e = CodingEnv("toy", backend="docker", state_key="observation")
    e.reset(options={"task_id": "toy-max-of"})
    *_, a = e.step(call("bash", command="echo same"))
    *_, b = e.step(call("bash", command="echo same"))
    *_, c = e.step(call("bash", command="echo other"))
    assert a["state_key"] == b["state_key"] != c["state_key"]
    e.close()
    e = CodingEnv("toy", backend="docker", state_key=lambda env: f"turn{env.turn}")
    e.reset(options={"task_id": "toy-max-of"})
    assert e.step(call("bash", command="true"))[-1]["state_key"] == "turn1"
    e.close()


def test_snapshot_restore_forks_an_episode_into_another_env(env):
    env.reset(options={"task_id": "toy-max-of"})
    env.step(call("bash", command="sed -i s/min/max/ stats.py && echo branch > b.txt"))
    snap = env.snapshot()
    other = CodingEnv("toy", backend="docker", max_turns=8)
    other.restore(snap)
    assert other.messages == env.messages and other.turn == env.turn == 1
    assert other.sandbox is not env.sandbox
    *_, info = other.step(call("bash", command="cat b.txt"))
    assert info["new_messages"][-1]["content"] == "branch\n"
    # the branches diverge independently
    env.step(call("bash", command="echo only-in-parent > p.txt"))
    *_, info = other.step(call("bash", command="ls p.txt"))
    assert "No such file" in info["new_messages"][-1]["content"]
    assert other.step(call("submit"))[1] == 1.0
    other.close()


def test_structured_actions_are_accepted(env):
    env.reset(options={"task_id": "toy-max-of"})
    *_, info = env.step(ToolCall("bash", {"command": "echo hi"}))
    assert info["new_messages"][-1]["content"] == "hi\n"
    *_, info = env.step({"name": "view", "arguments": {"path": "stats.py"}})
    assert "max_of" in info["new_messages"][-1]["content"]


def test_only_the_first_of_several_calls_runs(env):
    env.reset(options={"task_id": "toy-max-of"})
    *_, info = env.step(call("bash", command="echo one") + call("bash", command="echo two"))
    content = info["new_messages"][-1]["content"]
    assert content.startswith("one\n") and "1 more call(s) were not run" in content


@pytest.mark.parametrize("env_id, kwargs", [
    ("codegym/Toy-v0", {}), ("codegym/RepoFix-v0", {}), ("codegym/HumanEval-v0", {}), ("codegym/Tasks-v0", None)])
def test_check_env_passes_for_every_id(env_id, kwargs, tmp_path):
    if kwargs is None:
        path = tmp_path / "tasks.jsonl"
        write_tasks_jsonl(TOY[:3], path)
        kwargs = {"tasks": str(path)}
    env = gym.make(env_id, backend="docker", max_turns=3, **kwargs)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_eight_envs_step_concurrently_in_threads():
    ids = [t.instance_id for t in TOY[:8]]
    records = run_episodes(lambda: CodingEnv("toy", backend="docker"), OracleAgent(TOY), ids, max_workers=8)
    assert [r.task_id for r in records] == ids
    assert [r.reward for r in records] == [1.0] * 8, [(r.task_id, r.error, r.tests) for r in records]


def test_group_rollouts_of_one_task():
    records = run_episodes(lambda: CodingEnv("toy", backend="docker"), ScriptedAgent([]), ["toy-max-of"],
                           n_per_task=4, max_workers=4)
    assert [r.group for r in records] == [0, 1, 2, 3] and all(r.reward == 0.0 for r in records)


def test_episode_record_has_what_eval_writes(env):
    rec = run_episode(env, OracleAgent(TOY), "toy-max-of")
    d = rec.to_dict()
    assert d["reward"] == 1.0 and d["stop_reason"] == "submitted" and d["turns"] == 2
    assert d["steps"][0]["tool_call"]["name"] == "bash" and json.dumps(d)


def test_threads_share_the_pool_safely():
    errors = []

    def one():
        try:
            e = CodingEnv("toy", backend="docker")
            e.reset(options={"task_id": "toy-is-even"})
            e.step(call("bash", command="echo hi"))
            e.close()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(6)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert errors == []


@pytest.mark.parametrize("suite", ["toy", "repofix", "humaneval"])
def test_the_sandbox_history_ends_at_the_base_commit(suite):
    """Defence in depth under the guards: upstream objects are absent from the sandbox itself."""
    task = load_tasks(suite)[0]
    e = CodingEnv([task], backend="docker")
    e.reset()
    shas = [r for r in task.upstream_refs if len(r) == 40]
    assert shas
    for sha in shas:
        assert e.sandbox.exec(f"git cat-file -e {sha}").exit_code != 0
    r = e.sandbox.exec("git rev-parse HEAD; git log --all --format=%H | wc -l; git rev-list HEAD | wc -l; "
                       "git tag; git branch -a --format='%(refname)'; git reflog | wc -l; git remote; "
                       "git fsck --lost-found --no-progress 2>&1 | grep -c dangling || true")
    head, n_all, n_head, *rest = r.stdout.split()
    assert head == task.base_commit and n_all == n_head
    assert rest == ["refs/heads/main", "0", "0"], r.stdout  # no tags, one branch, no reflog/remotes/dangling
    e.close()


@pytest.mark.parametrize("bad", [None, 5, b'<tool_call>{"name": "submit", "arguments": {}}</tool_call>', ["ls"]])
def test_a_non_action_raises_without_using_a_turn(env, bad):
    obs, _ = env.reset(options={"task_id": "toy-max-of"})
    with pytest.raises(TypeError, match="completion text"):
        env.step(bad)
    assert env.turn == 0 and env.messages == obs and not env._done
    *_, info = env.step(call("bash", command="echo still here"))
    assert info["turn"] == 1 and info["new_messages"][-1]["content"] == "still here\n"


def test_a_malformed_structured_call_is_the_policys_error_and_costs_a_turn(env):
    env.reset(options={"task_id": "toy-max-of"})
    *_, info = env.step({"arguments": {"command": "ls"}})
    assert "needs" in info["parse_error"] and info["tool_call"] is None and env.turn == 1


def test_unknown_reset_options_are_errors(env):
    obs, _ = env.reset(options={"task_id": "toy-max-of"})
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['taskid'\]; valid keys: task_id"):
        env.reset(options={"taskid": "toy-add-typo"})
    with pytest.raises(ValueError, match="unknown task_id 'toy-nope'; this env has 15 tasks"):
        env.reset(options={"task_id": "toy-nope"})
    assert env.task.instance_id == "toy-max-of" and env.messages == obs  # the episode is untouched
    assert env.reset(options={"task_id": "toy-add-typo"})[1]["task_id"] == "toy-add-typo"


def test_unknown_sandbox_backends_are_rejected():
    from codegym.sandbox import SandboxPool
    from codegym.sandbox.pool import make_sandbox, resolve_backend

    for make in (lambda b: CodingEnv("toy", backend=b), lambda b: SandboxPool(backend=b),
                 lambda b: make_sandbox(backend=b), resolve_backend):
        for name in ("podman", "dokcer", "Docker"):
            with pytest.raises(ValueError, match="unknown sandbox backend .*'auto', 'docker', 'local'"):
                make(name)
    with pytest.raises(ValueError, match="DOCKER_HOST"):
        resolve_backend("podman")


def test_a_test_patch_that_does_not_apply_masks_the_episode():
    """A broken task is the environment's fault: masked with the reason, never a 0 that trains."""
    import dataclasses

    task = next(t for t in TOY if t.instance_id == "toy-max-of")
    stale = ("diff --git a/stats.py b/stats.py\n--- a/stats.py\n+++ b/stats.py\n@@ -1,2 +1,2 @@\n"
             "-def not_in_this_file():\n-    pass\n+def x():\n+    pass\n")
    e = CodingEnv([dataclasses.replace(task, test_patch=stale)], backend="docker")
    e.reset()
    obs, reward, term, trunc, info = e.step(call("submit"))
    assert info["stop_reason"] == "sandbox_error" and info["train_mask"] is False and reward == 0.0, info
    assert "do not apply to its base_commit" in info["sandbox_error"] and info["rewards"]["correctness"] == 0.0
    e.close()
