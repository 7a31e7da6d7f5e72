"""The pytest plugin: interpret-mode pallas_calls of a test go through heddle.
Runs plugin_cases.py under `pytest -p heddle_pallas.plugin` in a subprocess."""
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def test_plugin_gives_heddles_verdict_and_fails_an_unasked_race():
    env = dict(os.environ, PYTHONPATH=str(HERE.parents[1] / "models/pallas/python"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "heddle_pallas.plugin", "-p", "no:cacheprovider",
         "-q", "-rA", str(HERE / "plugin_cases.py")],
        capture_output=True, text=True, env=env, cwd=HERE.parents[1], timeout=600)
    out = proc.stdout
    # JAX's on_wait mode may miss the race; heddle sees it every run.
    assert "PASSED test/pallas/plugin_cases.py::test_asks_and_sees_the_race[eager]" in out, out
    assert "PASSED test/pallas/plugin_cases.py::test_asks_and_sees_the_race[on_wait]" in out, out
    assert "PASSED test/pallas/plugin_cases.py::test_asks_and_sees_no_race" in out, out
    assert "FAILED test/pallas/plugin_cases.py::test_race_nobody_asked_about_fails" in out, out
    assert "race: data race on dev0.t_ref" in out, out


def test_plugin_does_nothing_without_being_asked():
    env = dict(os.environ, PYTHONPATH=str(HERE.parents[1] / "models/pallas/python"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         str(HERE / "plugin_cases.py") + "::test_race_nobody_asked_about_fails"],
        capture_output=True, text=True, env=env, cwd=HERE.parents[1], timeout=600)
    assert proc.returncode == 0, proc.stdout
