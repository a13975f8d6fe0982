"""A task's `environment` field: parsing, the rendered Dockerfile (CA bundle for the build steps
only), the content tag and the loader's wiring. No Docker here: tests/sandbox/test_task_images.py
builds and grades for real."""

from __future__ import annotations

import json

import pytest

from codegym.tasks.environment import (
    CA_FILE,
    IMAGE_CA_PATH,
    WORKSPACE_FILE,
    environment_tag,
    parse_environment,
    render_dockerfile,
)
from codegym.tasks.loader import TaskLoadError, load_tasks, task_from_dict

SWE = {"python": "3.11", "pip_packages": ["six==1.16.0"], "install": "pip install -e .", "env": {"MODE": "x"}}


def test_swe_fields_are_normalized_and_an_install_bakes_the_repository():
    spec = parse_environment(SWE)
    assert spec.install == ("pip install -e .",) and spec.pip_packages == ("six==1.16.0",)
    assert spec.env == (("MODE", "x"),) and spec.bakes_repo and spec.needs_pip
    assert not parse_environment({"pip_packages": ["six"]}).bakes_repo
    assert parse_environment(spec.to_dict()) == spec


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"pip": ["six"]}, "unknown field(s) ['pip']"),
        ({"dockerfile": "FROM x\nRUN true\n", "install": ["make"]}, "goes alone"),
        ({"python": "2.7"}, "environment.python"),
        ({"env": {"1BAD": "x"}}, "not variable names"),
        ({"pip_packages": ["--index-url=http://evil"]}, "environment.pip_packages"),
        ({"install": [""]}, "environment.install"),
        ({"dockerfile": "RUN true\nRUN false\n"}, "no FROM line"),
        ({"dockerfile": "nowhere/Dockerfile"}, "is not a file"),
        ("pip install", "expected an object"),
    ],
)
def test_bad_environments_name_what_is_wrong(value, words, tmp_path):
    with pytest.raises(ValueError, match="environment") as e:
        parse_environment(value, base_dir=tmp_path)
    assert words in str(e.value)


def test_a_dockerfile_path_is_read_relative_to_the_task_file_and_its_folder_is_the_context(tmp_path):
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "Dockerfile").write_text("FROM scratch\nCOPY data.txt /data.txt\n")
    (tmp_path / "env" / "data.txt").write_text("one")
    spec = parse_environment({"dockerfile": "env/Dockerfile"}, base_dir=tmp_path)
    assert spec.dockerfile.startswith("FROM scratch") and spec.context == str((tmp_path / "env").resolve())
    tag = environment_tag(spec, base_image="b:1", workdir="/w", base_sha=None)
    assert tag == environment_tag(spec, base_image="b:1", workdir="/w", base_sha=None)
    (tmp_path / "env" / "data.txt").write_text("two")  # a context file is part of the image
    assert environment_tag(spec, base_image="b:1", workdir="/w", base_sha=None) != tag


def test_the_ca_bundle_is_given_to_the_build_steps_but_does_not_stay_in_the_image():
    text = render_dockerfile(parse_environment(SWE), "codegym/python:abc", workdir="/testbed")
    lines = text.splitlines()
    assert lines[:2] == ["ARG CODEGYM_BASE_IMAGE=codegym/python:abc", "FROM ${CODEGYM_BASE_IMAGE}"]
    copy = lines.index(f"COPY {CA_FILE} {IMAGE_CA_PATH}")
    for name in ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "CURL_CA_BUNDLE"):
        assert f"ARG {name}={IMAGE_CA_PATH}" in lines  # ARG: set for RUN steps, not in the image's env
        assert not any(line.startswith("ENV") and name in line for line in lines)
    pip = next(i for i, line in enumerate(lines) if "pip install" in line)
    assert copy < pip and lines[-1] == f"RUN rm -f {IMAGE_CA_PATH}"
    assert 'ENV MODE="x"' in lines and f"ADD {WORKSPACE_FILE} /testbed/" in lines
    assert lines.index(f"ADD {WORKSPACE_FILE} /testbed/") < lines.index("RUN pip install -e .")
    without = render_dockerfile(parse_environment(SWE), "codegym/python:abc", has_ca=False)
    assert CA_FILE not in without and IMAGE_CA_PATH not in without
    # A Dockerfile environment gets the same lines after each of its FROMs.
    harbor = render_dockerfile(parse_environment({"dockerfile": "FROM a AS one\nRUN x\nfrom b\n"}), "base")
    assert (
        harbor.splitlines()[1] == f"COPY {CA_FILE} {IMAGE_CA_PATH}" and harbor.count(f"COPY {CA_FILE}") == 2
    )


def test_the_tag_changes_with_everything_that_goes_into_the_image(tmp_path):
    spec = parse_environment(SWE)
    ca = tmp_path / "ca.crt"
    ca.write_text("cert one")
    tag = environment_tag(spec, base_image="b:1", workdir="/testbed", base_sha="a" * 40, ca_bundle=ca)
    assert tag.startswith("codegym/env:") and len(tag.split(":")[1]) == 16
    same = parse_environment(SWE, source="elsewhere.jsonl")  # where it was read from is not content
    assert environment_tag(same, base_image="b:1", workdir="/testbed", base_sha="a" * 40, ca_bundle=ca) == tag
    changed = [
        environment_tag(parse_environment({**SWE, "pip_packages": ["six==1.17.0"]}), base_image="b:1",
                        workdir="/testbed", base_sha="a" * 40, ca_bundle=ca),
        environment_tag(spec, base_image="b:2", workdir="/testbed", base_sha="a" * 40, ca_bundle=ca),
        environment_tag(spec, base_image="b:1", workdir="/src", base_sha="a" * 40, ca_bundle=ca),
        environment_tag(spec, base_image="b:1", workdir="/testbed", base_sha="b" * 40, ca_bundle=ca),
        environment_tag(spec, base_image="b:1", workdir="/testbed", base_sha="a" * 40, ca_bundle=None),
    ]  # fmt: skip
    assert tag not in changed and len(set(changed)) == len(changed)
    ca.write_text("cert two")
    assert environment_tag(spec, base_image="b:1", workdir="/testbed", base_sha="a" * 40, ca_bundle=ca) != tag
    # Without a baked repository the base commit is not in the image.
    plain = parse_environment({"pip_packages": ["six"]})
    assert environment_tag(plain, base_image="b", workdir="/w", base_sha="a" * 40) == environment_tag(
        plain, base_image="b", workdir="/w", base_sha="b" * 40
    )


def test_the_loader_gives_an_environment_task_its_content_tag_and_the_image_location(calc_repo, tmp_path):
    row = {**calc_repo.task.to_dict(), "repo": str(calc_repo.path), "environment": SWE}
    del row["workdir"]  # a workdir given is kept; none given is /testbed for a baked repository
    task = task_from_dict(row, file=tmp_path / "tasks.jsonl", line=3)
    assert (
        task.image.startswith("codegym/env:") and task.repo_location == "image" and task.workdir == "/testbed"
    )
    assert task.repo == str(calc_repo.path) and task.environment.source == str(tmp_path / "tasks.jsonl")
    again = task_from_dict(json.loads(json.dumps(task.to_dict())), file=tmp_path / "tasks.jsonl")
    assert again.image == task.image and again.environment == task.environment
    other = task_from_dict({**row, "base_commit": calc_repo.fix}, file=tmp_path / "t.jsonl")
    assert other.image != task.image  # another base commit: another repository in the image
    plain = task_from_dict({**row, "environment": {"pip_packages": ["six"]}}, file=tmp_path / "t.jsonl")
    assert plain.repo_location == "upload" and plain.workdir == "/workspace" and plain.image != task.image
    (tmp_path / "tasks.jsonl").write_text(json.dumps({**row, "environment": {"install": 5}}) + "\n")
    result = load_tasks(tmp_path / "tasks.jsonl")
    assert not result and isinstance(result.errors[0], TaskLoadError)
    assert result.errors[0].field == "environment" and "environment.install" in str(result.errors[0])
    (tmp_path / "tasks.jsonl").write_text(json.dumps({**row, "base_commit": "no-such-commit"}) + "\n")
    result = load_tasks(tmp_path / "tasks.jsonl")  # the baked repository's base sha is in the tag
    assert not result and "no-such-commit" in str(result.errors[0]) and "image tag" in str(result.errors[0])
