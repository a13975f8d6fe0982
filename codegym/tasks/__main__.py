"""`python -m codegym.tasks validate toy`: the same commands as `codegym tasks`."""

from codegym.tasks.cli import main

main()
