"""Per-iteration metrics and the progress lines."""

from __future__ import annotations


def test_progress_is_a_plain_line_per_iteration_when_stdout_is_not_a_terminal(tmp_path, capsys):
    from codegym.trainer.metrics import MetricsLogger

    log = MetricsLogger(tmp_path, tensorboard=False, progress=True, total=2)
    log.log(0, {"reward/mean": 0.25, "episodes/pass_rate": 0.5})
    log.log(1, {"reward/mean": 0.5})
    log.close()
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("train ")]
    assert len(lines) == 2 and lines[0].startswith("train 1/2  reward 0.25  pass 0.5"), lines
