#!/usr/bin/env bash
# Installs everything the test suite needs into .venv and runs it (the README's test command).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -e ".[test]"
python -m pytest "$@"
