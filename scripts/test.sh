#!/usr/bin/env bash
# Installs everything the test suite needs into .venv (the test extra, and the optional Ray extra when
# it installs) and runs it (the README's test command).
# The browser tests (tests/browser/) drive Debian's Chromium through Playwright; when /usr/bin/chromium
# is missing and we are root (or have password-less sudo), it is installed with apt-get. Any failure
# there only prints a warning: the browser tests then skip with a reason. Set GGP_NO_APT=1 to skip it.
set -euo pipefail
cd "$(dirname "$0")/.."

install_chromium() {
  local sudo="" log
  [ -x /usr/bin/chromium ] && return 0
  if [ "${GGP_NO_APT:-}" = 1 ]; then
    echo "test.sh: GGP_NO_APT=1, not installing chromium; the browser tests will skip" >&2
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: no apt-get here, cannot install chromium; the browser tests will skip" >&2
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
      sudo="sudo -n"
    else
      echo "test.sh: not root and no password-less sudo, cannot install chromium; the browser tests will skip" >&2
      return 0
    fi
  fi
  log="$(mktemp)"
  echo "test.sh: installing chromium with apt-get (for the browser tests)" >&2
  if $sudo apt-get update >"$log" 2>&1 \
      && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >>"$log" 2>&1; then
    rm -f "$log"
  else
    echo "test.sh: apt-get could not install chromium; the browser tests will skip. Last lines:" >&2
    tail -n 5 "$log" >&2 || true
    rm -f "$log"
  fi
  return 0
}

install_chromium
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
python -m pytest "$@"
