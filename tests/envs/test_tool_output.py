"""What the agent reads back from a command, through a real env in a Docker sandbox: the true
size of a huge output, an out-of-memory kill named with its limit, binary output escaped."""

from __future__ import annotations

import pytest

from codegym.envs import CodingEnv
from codegym.sandbox import SandboxConfig


@pytest.fixture
def env(python_image):
    e = CodingEnv("toy", backend="docker", max_turns=8,
                  sandbox_config=SandboxConfig(image=python_image, memory="512m"))
    e.reset(seed=0, options={"task_id": "toy-hello-file"})
    yield e
    e.close()


def bash(env, command: str) -> str:
    obs, *_ = env.step({"name": "bash", "arguments": {"command": command}})
    return obs[-1]["content"]


def test_a_50_mb_output_states_its_true_size(env):
    seen = bash(env, "head -c 52428800 /dev/zero | tr '\\0' a")
    assert "\n[... 52,428,800 bytes of output; " in seen and "(50 MiB) elided ...]\n" in seen
    assert seen.startswith("aaaa") and seen.endswith("aaaa") and len(seen) < env.max_output_chars + 200


def test_a_memory_hog_is_said_to_be_killed_for_lack_of_memory(env):
    seen = bash(env, "python3 -c 'b = bytearray(2 << 30)'")
    assert "killed: out of memory (limit 512 MiB)" in seen, seen
    assert "(no output)" not in seen


def test_binary_output_is_a_notice_and_an_escaped_excerpt(env):
    seen = bash(env, r"printf 'PNG\0\0\033[31m\377\376'; head -c 20000 /dev/urandom")
    first, _, excerpt = seen.partition("\n")
    assert first.startswith("[binary output: 20,012 bytes with NUL, ESC, "), first
    assert excerpt.startswith("PNG\\x00\\x00\\x1b[31m\\ufffd\\ufffd")
    assert not any(c in seen for c in "\x00\x1b\ufffd") and len(seen) < 2_000
