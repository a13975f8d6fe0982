"""codegym: coding tasks as Gymnasium multi-turn environments in Docker sandboxes.

Importing codegym registers the Gymnasium ids (`codegym/Toy-v0`, `codegym/RepoFix-v0`,
`codegym/HumanEval-v0`, `codegym/Tasks-v0`).
"""

__version__ = "0.1.0"


def _register() -> None:
    try:
        from codegym.envs.registration import register_envs
    except ImportError:  # a partial install (e.g. only the sandbox layer): nothing to register
        return
    register_envs()


_register()
