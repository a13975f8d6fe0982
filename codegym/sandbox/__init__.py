"""Where commands run: hardened Docker containers (default) or bubblewrap, behind one protocol.

    from codegym.sandbox import SandboxPool
    pool = SandboxPool()            # warm containers of the default Python task image
    with pool.sandbox() as sb:      # a pristine sandbox, returned to the pool afterwards
        print(sb.exec("ls -la").stdout)
"""

from .base import DEFAULT_WORKDIR, ExecResult, Sandbox, SandboxError
from .config import SandboxConfig
from .docker_sandbox import DockerSandbox, docker_client
from .local import LocalSandbox
from .pool import SandboxPool, make_sandbox

__all__ = [
    "DEFAULT_WORKDIR",
    "DockerSandbox",
    "ExecResult",
    "LocalSandbox",
    "Sandbox",
    "SandboxConfig",
    "SandboxError",
    "SandboxPool",
    "docker_client",
    "make_sandbox",
]
