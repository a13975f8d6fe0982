"""The `codegym` command: doctor, images, eval."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from codegym.cli import app

runner = CliRunner()


def test_doctor_reports_every_piece():
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    for piece in ("docker engine", "sandbox images", "bubblewrap", "torch"):
        assert piece in result.output


def test_images_build_is_a_no_op_when_unchanged_and_list_shows_it(python_image):
    result = runner.invoke(app, ["images", "build"])
    assert result.exit_code == 0 and python_image in result.output
    assert "building" not in result.output
    listing = runner.invoke(app, ["images", "list"], terminal_width=200)
    assert python_image.split(":")[1] in listing.output


def test_image_tag_is_content_addressed(tmp_path, monkeypatch):
    from codegym.sandbox import images

    spec = images.image_specs()["python"]
    copy = tmp_path / "python"
    copy.mkdir()
    (copy / "Dockerfile").write_text((spec.context / "Dockerfile").read_text())
    same = images.image_tag(images.ImageSpec("python", copy), "base:1")
    assert same == images.image_tag(spec, "base:1")
    (copy / "Dockerfile").write_text((spec.context / "Dockerfile").read_text() + "\n# changed\n")
    assert images.image_tag(images.ImageSpec("python", copy), "base:1") != same
    assert images.image_tag(spec, "base:2") != same


def test_eval_writes_episodes_and_summary(tmp_path):
    result = runner.invoke(app, ["eval", "--agent", "oracle", "--suite", "toy", "--limit", "3", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 3
    ep = json.loads(lines[0])
    assert ep["reward"] == 1.0 and ep["messages"] and ep["steps"][0]["tool_call"]["name"] == "bash"
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["pass_rate"] == 1.0 and summary["episodes"] == 3
