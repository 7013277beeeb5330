#!/usr/bin/env bash
# Installs everything the test suite needs into .venv (the test extra, and the optional Ray extra when
# it installs) and runs it (the README's test command).
# The browser tests (tests/browser/) drive Debian's Chromium through Playwright, and scripts/check_c.sh
# needs Debian's cppcheck; when missing and we are root (or have password-less sudo), they are installed
# with apt-get. A failed install only prints a warning: the browser tests then skip with a reason, and the
# C checks stop the run. Set GGP_NO_APT=1 to skip apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

# apt_install PACKAGE BINARY WHAT: installs a Debian package when BINARY is missing and we are root (or have
# password-less sudo); any failure only prints a warning saying what will not run (WHAT).
apt_install() {
  local package="$1" binary="$2" what="$3" sudo="" log
  [ -x "$binary" ] && return 0
  if [ "${GGP_NO_APT:-}" = 1 ]; then
    echo "test.sh: GGP_NO_APT=1, not installing $package; $what" >&2
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: no apt-get here, cannot install $package; $what" >&2
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
      sudo="sudo -n"
    else
      echo "test.sh: not root and no password-less sudo, cannot install $package; $what" >&2
      return 0
    fi
  fi
  log="$(mktemp)"
  echo "test.sh: installing $package with apt-get" >&2
  if { [ -n "${APT_UPDATED:-}" ] || $sudo apt-get update >"$log" 2>&1; } \
      && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "$package" >>"$log" 2>&1; then
    APT_UPDATED=1
    rm -f "$log"
  else
    echo "test.sh: apt-get could not install $package; $what. Last lines:" >&2
    tail -n 5 "$log" >&2 || true
    rm -f "$log"
  fi
  return 0
}

apt_install chromium /usr/bin/chromium "the browser tests will skip"
apt_install cppcheck /usr/bin/cppcheck "scripts/check_c.sh will fail (in CI its checks are required)"
python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -e ".[test]"
# Ray is an optional extra; with it installed the distributed-evaluation test runs instead of skipping.
if ! python -m pip install -q -e ".[test,ray]" >/dev/null 2>&1; then
  echo "test.sh: could not install the optional Ray extra; the Ray test will skip" >&2
fi
# The rl extra (gymnasium, stable-baselines3, CPU torch) lets the PPO Sokoban tests run instead of skipping.
if ! python -m pip install -q -e ".[test,rl]" >/dev/null 2>&1; then
  echo "test.sh: could not install the optional rl extra; the PPO tests will skip" >&2
fi
# Static checks first (the project's own configuration in pyproject.toml): style and bugs, types with
# the tests included, and the import layering of README's "How it fits together".
echo "test.sh: ruff, mypy --strict, import-linter" >&2
python -m ruff check --quiet .
python -m mypy ggp tests benchmarks
lint-imports --no-cache
echo "test.sh: the C sources (scripts/check_c.sh: gcc -Wall -Wextra -Werror, cppcheck, the sanitizers)" >&2
bash scripts/check_c.sh
python -m pytest "$@"
