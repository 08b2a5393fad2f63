#!/usr/bin/env bash
# Make sure the Graphviz `dot` binary exists: install it as root, otherwise say what to do.
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
NOTE: the Graphviz 'dot' program is missing, so graphs are written as DOT text only.
      Install it to get SVG/PNG pictures:
        Debian/Ubuntu: sudo apt-get install graphviz
        macOS:         brew install graphviz
        conda:         conda install -c conda-forge graphviz
MSG
exit 0
