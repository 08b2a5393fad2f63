#!/usr/bin/env bash
# Optional: install the system Graphviz `dot` program (as root, with apt-get).
# minitorch's viz does not need it: `pip install "minitorch[viz]"` (what `make venv` does)
# brings graphviz-pure, a self-contained Graphviz that viz uses when `dot` is missing.
# The system `dot` adds PDF output; with it on PATH viz prefers it (see viz.set_renderer).
set -u
if command -v dot >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing the Graphviz binary (apt-get install -y graphviz)..."
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null \
    && exit 0
  echo "WARNING: apt-get could not install graphviz." >&2
fi
cat >&2 <<'MSG'
NOTE: the system Graphviz 'dot' program is not installed. That is fine: viz draws with
      graphviz-pure (installed into .venv by `make venv`). For PDF output install dot:
        Debian/Ubuntu: sudo apt-get install graphviz
        macOS:         brew install graphviz
        conda:         conda install -c conda-forge graphviz
MSG
exit 0
