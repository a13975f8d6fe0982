"""`RayEnvPool` on a real local Ray cluster (``ray.init(num_cpus=2)``), envs in real Docker sandboxes.

The same episodes as the local collector for a fixed seed, Tree-GRPO nodes that move between
two workers, a worker process killed mid-batch (its episodes masked with the reason, the
worker replaced, the batch complete), and a clear error instead of a hang when no node can
host the workers.
"""

from __future__ import annotations

import os
import sys
import time

import gymnasium as gym
import pytest
import ray

import codegym  # noqa: F401  (registers the ids)
from codegym.agents import LLMAgent
from codegym.agents.engines import TransformersEngine
from codegym.trainer.ray_pool import LocalEnvPool, RayEnvPool, WorkerDiedError, make_env_pool
from codegym.trainer.rollout import collect, collect_trees

# The env factories and wrappers below run inside the worker actors: ship them by value.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module", autouse=True)
def cluster(ray_cluster):
    """Every test of this module runs on one small local cluster (see conftest.py)."""
    return ray_cluster


@pytest.fixture(scope="module")
def tok():
    from codegym.agents.tiny import build_tiny_tokenizer

    return build_tiny_tokenizer()


@pytest.fixture(scope="module")
def agent(tok):
    from codegym.agents.tiny import build_tiny_model

    return LLMAgent(OneByOne(TransformersEngine(build_tiny_model(tok), tok)), tok, max_new_tokens=8)


@pytest.fixture(scope="module")
def pool():
    """Two workers of two envs, for all tests; the worker that steps `toy-is-even` twice dies."""
    make = lambda: KillWorkerAt(toy()(), "toy-is-even")  # noqa: E731
    with make_env_pool("ray", make, num_workers=2, envs_per_worker=2, timeout_s=120) as p:
        yield p


class OneByOne:
    """Generates each request alone, so a completion depends only on its prompt and seed, not
    on which requests shared its batch (thread timing decides that, locally and on Ray)."""

    def __init__(self, inner):
        self.inner, self.eos_token_ids, self.max_context = inner, inner.eos_token_ids, inner.max_context

    @property
    def policy_version(self):
        return self.inner.policy_version

    def generate(self, requests):
        return [self.inner.generate([r])[0] for r in requests]


def toy(turns: int = 2):
    return lambda: gym.make("codegym/Toy-v0", backend="docker", max_turns=turns)


class KillWorkerAt(gym.Wrapper):
    """Kills the whole worker process (as a lost node would) when `task` takes its second step."""

    def __init__(self, env, task: str):
        super().__init__(env)
        self.task = task

    def step(self, action):
        env = self.env.unwrapped
        if env.task.instance_id == self.task and env.turn == 1:
            os._exit(1)
        return self.env.step(action)


def comparable(ep):
    d = ep.to_dict()
    d["metadata"] = {k: v for k, v in d["metadata"].items() if k not in ("timing", "wall_s")}
    return d


def test_ray_pool_gives_the_local_collectors_episodes(agent, pool):
    local = collect(toy(), agent, ["toy-add-typo"], group_size=2, max_envs=4, seed=7, batch_id="it")
    assert isinstance(pool, RayEnvPool) and pool.max_envs == 4 and pool.slot_resources == {"sandbox": 1}
    pids = {w.where["pid"] for w in pool.workers}
    assert len(pids) == 2 and os.getpid() not in pids
    remote = pool.collect(agent, ["toy-add-typo"], group_size=2, seed=7, batch_id="it")
    assert [comparable(e) for e in remote] == [comparable(e) for e in local]
    assert all(e.train_mask and e.num_steps == 2 for e in remote) and pool.stats["restarts"] == 0
    assert remote[0].steps[0].completion_ids != remote[1].steps[0].completion_ids  # a group samples apart


def test_tree_nodes_move_between_workers(agent, pool):
    pool.events.clear()
    leaves = collect_trees(pool.make_env, agent, ["toy-max-of"], trees=1, rounds=1, expand=2, max_envs=2,
                           batch_id="tr")
    assert [e.branch_id for e in leaves] == [0, 1, 2] and all(e.train_mask for e in leaves)
    root = leaves[0]
    for leaf in leaves[1:]:
        assert leaf.parent_id == root.episode_id and leaf.branch_step == 1 and leaf.num_steps == 2
        assert leaf.steps[0].completion_ids == root.steps[0].completion_ids
        assert leaf.steps[0].state_key == root.steps[0].state_key
    origin = {key: w for op, w, key in pool.events if op == "snapshot"}
    restored = [(origin[key], w) for op, w, key in pool.events if op == "restore"]
    assert len(restored) == 2 and {w for _, w in restored} == {0, 1}  # one envs per worker
    assert any(src != dst for src, dst in restored)  # a snapshot taken on one worker went on on the other


def test_a_killed_worker_masks_its_episodes_and_the_batch_completes(agent, pool):
    tasks = ["toy-is-even", "toy-add-typo", "toy-hello-file", "toy-greeting-typo"]
    pids = {w.where["pid"] for w in pool.workers}
    t0 = time.monotonic()
    episodes = pool.collect(agent, tasks, batch_id="k", max_envs=3)  # the 4th job starts after the kill
    wall = time.monotonic() - t0
    assert pool.stats["restarts"] == 1 and len(episodes) == 4 and wall < 100
    killed = episodes[0]
    assert not killed.train_mask and killed.stop_reason == "env_error" and killed.num_steps == 2
    assert WorkerDiedError.__name__ in killed.mask_reason and "died during step" in killed.mask_reason
    masked = [e for e in episodes if not e.train_mask]
    assert len(masked) <= 2 and all("env worker" in e.mask_reason for e in masked)  # its envs, no others
    assert sum(e.train_mask and e.num_steps == 2 for e in episodes) >= 2
    again = pool.collect(agent, ["toy-max-of", "toy-add-typo"], batch_id="k2")  # one env on each worker
    assert all(e.train_mask and e.num_steps == 2 for e in again)
    new_pids = {w.where.get("pid") for w in pool.workers}
    assert None not in new_pids and len(new_pids - pids) == 1  # the replacement is a new process, serving


def test_unschedulable_workers_fail_fast_and_local_backend():
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="did not start within"):
        RayEnvPool(toy(), num_workers=1, envs_per_worker=1, slot_resources={"gpu_sandbox": 1}, start_timeout_s=2)
    assert time.monotonic() - t0 < 20
    pool = make_env_pool("local", toy(), max_envs=3, num_workers=9)
    assert isinstance(pool, LocalEnvPool) and pool.max_envs == 3
    with pytest.raises(ValueError, match="unknown rollout backend"):
        make_env_pool("dask", toy())
