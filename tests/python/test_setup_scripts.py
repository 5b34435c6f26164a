"""tools/setup.sh talks: its plan before it starts, a wait for apt's lock instead of a failure,
the build's progress, --quiet for CI (run here against stand-ins for apt, dpkg and pip); and
tools/test.sh and pytest say in one line how many tests skipped for want of the image data."""

import os
import pathlib
import shutil
import stat
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

STUBS = {
    "id": 'echo 0',
    "dpkg": 'exit 1',  # nothing installed
    "apt-cache": 'exit 0',  # the distribution has everything
    "sleep": 'exit 0',
    # apt's lock is held for the first two calls, as by unattended-upgrades
    "apt-get": '''n=$(cat "$STUB_DIR/apt-calls" 2>/dev/null || echo 0); echo $((n + 1)) > "$STUB_DIR/apt-calls"
if [ "$n" -lt 2 ]; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 42 (apt-get)" >&2
  exit 100
fi
echo "apt-get $*" >> "$STUB_DIR/apt-log"''',
}
PIP = '''case "$*" in
  *upgrade*) exit 0 ;;
esac
echo "Processing /repo"
echo "-- Configuring done"
if [ -n "${STUB_BUILD_FAILS:-}" ]; then echo "error: the compiler says no"; exit 1; fi
for i in $(seq 1 20); do echo "[$i/20] Building CXX object f$i.o"; done'''


def executable(path, body):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/usr/bin/env bash\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def setup_sh(tmp_path):
    """Runs a copy of tools/setup.sh in a checkout of stand-ins; returns (status, out, err)."""
    shutil.copy(ROOT / "tools" / "setup.sh", tmp_path / "setup.sh")
    (tmp_path / "repo" / "tools").mkdir(parents=True)
    shutil.copy(ROOT / "tools" / "setup.sh", tmp_path / "repo" / "tools" / "setup.sh")
    stubs = tmp_path / "stubs"
    for name, body in STUBS.items():
        executable(stubs / name, body)
    executable(tmp_path / "repo" / ".venv" / "bin" / "python", PIP)
    executable(tmp_path / "repo" / ".venv" / "bin" / "sluice", 'echo "sluice 9.9"')

    def run(*args, **env):
        proc = subprocess.run(["bash", "tools/setup.sh", *args], cwd=tmp_path / "repo",
                              capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, PATH=f"{stubs}:{os.environ['PATH']}",
                                       STUB_DIR=str(stubs), **env))
        return proc.returncode, proc.stdout, proc.stderr

    run.stubs = stubs
    return run


def test_setup_says_what_it_installs_waits_for_apt_and_shows_the_build(setup_sh):
    status, out, err = setup_sh()
    assert status == 0, err
    assert out.index("setup.sh will") < out.index("[1] installing Debian packages")
    assert "apt-get" in out and "python3-torch" in out and "the `sluice` command" in out
    assert "another process holds apt's lock" in err and "waiting for it" in err
    installed = (setup_sh.stubs / "apt-log").read_text()
    assert "apt-get -q update" in installed and "python3-torch python3-torchvision" in installed
    progress = [line for line in out.splitlines() if "compiling:" in line]
    assert progress[0].strip() == "compiling:   5% (1 of 20 steps)"
    assert progress[-1].strip() == "compiling: 100% (20 of 20 steps)"
    assert "done: sluice 9.9" in out


def test_setup_quiet_prints_only_errors(setup_sh):
    status, out, err = setup_sh("--quiet")
    assert status == 0 and out == "", out
    status, out, err = setup_sh("--quiet", STUB_BUILD_FAILS="1")
    assert status == 1 and out == ""
    assert "error: the compiler says no" in err and "setup.sh: the build failed" in err


def test_setup_refuses_an_unknown_option(setup_sh):
    status, out, err = setup_sh("--test")
    assert status == 2 and "unknown option '--test'" in err


def test_test_sh_and_pytest_say_how_many_tests_lacked_the_image_data():
    build = next(ROOT.glob("build/cp3*/CTestTestfile.cmake"), None)
    if build is None or shutil.which("ctest") is None:
        pytest.skip("no C++ test build (tools/setup.sh --tests)")
    env = dict(os.environ, SLUICE_TEST_DATA="/nonexistent", SLUICE_CTEST_ARGS="-R ^PngDecoder\\.")
    proc = subprocess.run(["bash", "tools/test.sh", "-p", "no:cacheprovider", "-k",
                           "test_on_error_skip_replaces_bad_samples_and_counts_them"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "C++: 7 test(s) skipped for want of the image test data: /nonexistent not found" in proc.stdout
    assert ("1 test skipped for want of the image test data: put the data set at ../shared/data "
            "next to the clone or set SLUICE_TEST_DATA") in proc.stdout
