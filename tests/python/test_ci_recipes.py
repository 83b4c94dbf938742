"""The CI recipes in examples/ci/: valid against the published schemas, and their commands work.

GitHub and GitLab themselves cannot run here; what can is checked: each file against its schema
(check-jsonschema's vendored copies of the schemas GitHub's and GitLab's editors use), and the
pto-memory-map commands the jobs run, on the bundled before/after example.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pto_memory_map as pmm
from pto_memory_map import code_quality

from conftest import ROOT

CI = ROOT / "examples" / "ci"
# Every workflow and recipe in the repository, each with the schema of the service that runs it.
RECIPES = [
    (CI / "github-memory-map.yml", "vendor.github-workflows"),
    (CI / "gitlab-memory-map.yml", "vendor.gitlab-ci"),
    *((p, "vendor.github-workflows") for p in sorted((ROOT / ".github" / "workflows").glob("*.yml"))),
]


def test_every_workflow_and_recipe_is_validated():
    found = {*CI.glob("*.yml"), *(ROOT / ".github" / "workflows").glob("*.yml")}
    assert found == {p for p, _ in RECIPES}
    assert (ROOT / ".github" / "workflows" / "release.yml") in found


def check_jsonschema(schema: str, path: Path) -> subprocess.CompletedProcess:
    binary = Path(sys.executable).parent / "check-jsonschema"
    return subprocess.run([str(binary), "--builtin-schema", schema, str(path)], capture_output=True, text=True)


@pytest.mark.parametrize("path, schema", RECIPES, ids=lambda x: getattr(x, "name", x))
def test_the_recipe_validates_against_its_schema(path, schema, tmp_path):
    name = path.name
    ok = check_jsonschema(schema, path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # The validator does look: the same file with a misspelt key is refused.
    broken = tmp_path / name
    text = path.read_text()
    broken.write_text(
        text.replace("runs-on:", "run-on:") if "github" in schema else text.replace("  script:", "  scripts:")
    )
    bad = check_jsonschema(schema, broken)
    assert bad.returncode != 0, f"{name} with a misspelt key passed {schema}"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([pmm.find_binary(), *args], capture_output=True, cwd=cwd)


@pytest.fixture
def trees(tmp_path: Path) -> Path:
    """A base and a head build_output/ as the jobs lay them out: the demo case before and after."""
    for side, case in (("base", "demo_case"), ("build_output", "demo_change")):
        shutil.copytree(ROOT / "examples" / case, tmp_path / side / "qk")
        shutil.copytree(ROOT / "tests" / "fixtures" / "fx_a5_case", tmp_path / side / "mx")
    return tmp_path


def test_the_jobs_commands_on_the_example(trees):
    # check --format sarif: a SARIF 2.1.0 log with a result per finding, exit 1 for a failed gate.
    sarif = run("check", "build_output", "--max-occupancy", "90", "--format", "sarif", cwd=trees)
    assert sarif.returncode in (0, 1), sarif.stderr
    log = json.loads(sarif.stdout)
    assert log["version"] == "2.1.0" and log["runs"][0]["results"]
    # diff BASE HEAD -f md / -f json, and a PNG for each case that moved.
    md = run("diff", "base", "build_output", "-f", "md", "-o", "diff.md", cwd=trees)
    assert md.returncode == 0, md.stderr
    text = (trees / "diff.md").read_text()
    assert "1 of 2 cases changed" in text and "| qk |" in text
    assert run("diff", "base", "build_output", "-f", "json", "-o", "diff.json", cwd=trees).returncode == 0
    moved = sorted({m["case"] for m in json.loads((trees / "diff.json").read_text())["moved"]})
    assert moved == ["qk"]
    png = run("diff", "base/qk", "build_output/qk", "-f", "png", "-o", "qk.png", cwd=trees)
    assert png.returncode == 0, png.stderr
    assert (trees / "qk.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_code_quality_report(trees, over_capacity, monkeypatch):
    shutil.copytree(over_capacity, trees / "build_output" / "spills")
    monkeypatch.chdir(trees)
    entries = code_quality("build_output", max_occupancy=90)
    overflow = [e for e in entries if e["check_name"] == "pto-memory-map/overflow"]
    assert len(overflow) == 1
    assert overflow[0]["severity"] == "critical"
    assert overflow[0]["location"] == {
        "path": "build_output/spills/passes_dump/35_after_AllocateMemoryAddr.py",
        "lines": {"begin": 17},
    }
    assert overflow[0]["description"].startswith("spills: spill: Vec: c__tile ends at 192 KB")
    assert len({e["fingerprint"] for e in entries}) == len(entries)
    assert {e["severity"] for e in entries} <= {"info", "minor", "major", "critical", "blocker"}
    # The module the GitLab job runs is the binary's report, with the check's exit status.
    cli = subprocess.run(
        [sys.executable, "-m", "pto_memory_map.codequality", "build_output", "--max-occupancy", "90"],
        capture_output=True,
        text=True,
        cwd=trees,
    )
    assert cli.returncode == 1, cli.stderr
    assert json.loads(cli.stdout) == entries
    bad = subprocess.run([sys.executable, "-m", "pto_memory_map.codequality"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr.lower()


def load_yaml(path: Path) -> dict:
    from ruamel.yaml import YAML  # check-jsonschema's YAML reader, installed with it

    return YAML(typ="safe").load(path.read_text())


def bash(script: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    # Both services run a job's commands in bash with -e and pipefail; the wheel's binary and this
    # environment's python come first on PATH, as after the jobs' `pip install pto-memory-map`.
    path = f"{Path(sys.executable).parent}:{Path(pmm.find_binary()).parent}:/usr/bin:/bin"
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env={"PATH": path, "HOME": str(cwd), **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_github_workflows_steps_run_as_written(trees):
    """The steps that need no GitHub (check, compare) run verbatim on the example's trees."""
    workflow = load_yaml(CI / "github-memory-map.yml")
    steps = {s.get("name"): s for s in workflow["jobs"]["memory-map"]["steps"]}
    # Installed from the repository, its address one variable, until a release has wheels.
    assert '"pto-memory-map @ git+$PTO_MEMORY_MAP_REPO"' in steps["Install"]["run"]
    assert workflow["env"]["PTO_MEMORY_MAP_REPO"].startswith("https://")
    env = {"RUNNER_TEMP": str(trees), "GITHUB_OUTPUT": str(trees / "github_output"), "MAX_OCCUPANCY": "90"}
    check = bash(steps["Check the head"]["run"], trees, env)
    assert check.returncode == 0, check.stderr  # a failed gate is recorded, not an error of the step
    # The changed example's Bias is 100% full: max_occupancy 90 fails the gate.
    assert (trees / "github_output").read_text() == "status=1\n"
    sarif = json.loads((trees / "memory-map.sarif").read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"max-occupancy", "pressure"}
    compare = bash(steps["Compare base and head"]["run"], trees, env)
    assert compare.returncode == 0, compare.stderr
    out = trees / "memory-map-diff"
    assert "1 of 2 cases changed" in (out / "diff.md").read_text()
    assert sorted(p.name for p in out.glob("*.png")) == ["qk.png"]  # only the case that moved
    assert (out / "qk.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_gitlab_jobs_script_runs_as_written(trees):
    """The job's script after the dumps (check, Code Quality, diff, pictures, note) runs verbatim;
    without MEMORY_MAP_TOKEN it posts nothing, and it exits with the gate's status."""
    recipe = load_yaml(CI / "gitlab-memory-map.yml")
    job = recipe["memory-map"]
    # The tool is installed from the wheel the pipeline built in an image that has cargo, from the
    # one repository address the recipe names.
    wheel = recipe["memory-map-wheel"]
    assert wheel["image"].startswith("rust:") and job["needs"] == ["memory-map-wheel"]
    assert any('git+$PTO_MEMORY_MAP_REPO"' in line for line in wheel["script"])
    assert "wheels/" in wheel["artifacts"]["paths"]
    assert any("pip install wheels/pto_memory_map-*.whl" in line for line in job["script"])
    script = job["script"]
    start = next(i for i, line in enumerate(script) if line.startswith("mkdir -p memory-map-diff"))
    env = {"MAX_OCCUPANCY": str(job["variables"]["MAX_OCCUPANCY"]), "MEMORY_MAP_BASE": str(trees / "base")}
    run = bash("\n".join(script[start:]), trees, env)
    assert run.returncode == 1, run.stderr  # Bias 100% > 90% fails the gate, after every file is written
    assert "MEMORY_MAP_TOKEN is not set" in run.stdout
    report = json.loads((trees / "gl-code-quality-report.json").read_text())
    assert any(e["check_name"] == "pto-memory-map/max-occupancy" and e["severity"] == "critical" for e in report)
    assert all(e["location"]["path"].startswith("build_output/") for e in report)
    note = (trees / "memory-map-diff" / "note.md").read_text()
    assert note == (trees / "memory-map-diff" / "diff.md").read_text() and "1 of 2 cases changed" in note
    assert (trees / "memory-map-diff" / "qk.png").is_file()
    for path in job["artifacts"]["paths"]:
        assert (trees / path).exists(), path


def test_the_release_workflow_builds_every_platforms_wheel_on_a_tag():
    workflow = load_yaml(ROOT / ".github" / "workflows" / "release.yml")
    assert workflow["on"]["push"]["tags"] == ["v*"]
    jobs = workflow["jobs"]
    linux = jobs["linux"]
    assert linux["strategy"]["matrix"]["target"] == ["x86_64", "aarch64"]
    build = next(s for s in linux["steps"] if s.get("uses", "").startswith("PyO3/maturin-action"))
    assert build["with"]["manylinux"] == "auto" and "--locked" in build["with"]["args"]
    macs = {(m["runner"], m["target"]) for m in jobs["macos"]["strategy"]["matrix"]["include"]}
    assert {t for _, t in macs} == {"x86_64", "aarch64"}
    # Published only from a tag, after every wheel was installed and run on its own platform.
    publish = jobs["publish"]
    assert set(publish["needs"]) == {"sdist", "smoke"} and "refs/tags/v" in publish["if"]
    assert publish["permissions"]["id-token"] == "write"
    assert len(jobs["smoke"]["strategy"]["matrix"]["include"]) == 4
