#!/usr/bin/env bash
# Install everything the tests need (system and Python packages), then run the whole suite.
# Usage: bash scripts/test.sh [pytest args...]   (ruff, mypy, the fast tier, then the referees)
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
need_apt=()
{ command -v soffice >/dev/null && /usr/bin/python3 -c "import uno" 2>/dev/null; } \
  || need_apt+=(libreoffice-calc-nogui python3-uno)
command -v pdflatex >/dev/null \
  || need_apt+=(texlive-latex-base texlive-latex-recommended texlive-fonts-recommended)
# every package the documents use (lmodern ships apart from pdflatex on Debian/Ubuntu)
for sty in lmodern amsmath amssymb booktabs longtable graphicx geometry hyperref; do
  kpsewhich "$sty.sty" >/dev/null 2>&1 || { need_apt+=(lmodern texlive-latex-recommended); break; }
done
command -v pdftoppm >/dev/null || need_apt+=(poppler-utils)  # rendering the workbook to PNG
command -v ssconvert >/dev/null || need_apt+=(gnumeric)  # the second spreadsheet engine (portability)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing system packages: ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
# torch first and pinned: 2.13.0 is the local CPU wheel; nothing else may pull a CUDA build.
"$PY" -m pip install -q --disable-pip-version-check torch==2.13.0
"$PY" -m pip install -q --disable-pip-version-check -e '.[test]'
# GPT-2's gpt2.tiktoken ships inside openai-whisper; its own dependencies (torch, numba) are not needed
"$PY" -m pip install -q --disable-pip-version-check --no-deps openai-whisper==20250625

# lint and types first, then the fast tier (no torch, TeX, LibreOffice or site builders; under
# a minute), then the referees; together they are the whole suite
"$PY" -m ruff check .
"$PY" -m ruff format --check .
"$PY" -m mypy
run_tier() {  # pytest's exit 5 (nothing collected for this tier) is not a failure
  set +e
  "$PY" -m pytest -p no:cacheprovider -p no:benchmark -m "$1" "${@:2}"
  local rc=$?
  set -e
  if [ "$rc" -eq 5 ]; then echo "pytest: no tests in tier '$1' (exit 5)"; return 0; fi
  return "$rc"
}
run_tier "not oracle and not libreoffice and not tex and not sites and not slow" -n auto "$@"  # pytest-xdist: one process a CPU
run_tier "oracle or libreoffice or tex or sites or slow" "$@"
