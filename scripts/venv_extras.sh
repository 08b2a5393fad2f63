#!/usr/bin/env bash
# Install into a venv the extras of pyproject.toml that a make target needs and it lacks.
#
#   scripts/venv_extras.sh VENV EXTRA[,EXTRA...]
#
# VENV/.extras lists the extras installed so far (one line, comma-separated). An extra
# already listed is not installed again, so `make demo` after `make test` runs no pip; when
# pyproject.toml is newer than that list, the list is forgotten and the extras asked for
# are installed afresh (pip then updates what the new pyproject.toml asks for). Each pip
# run installs the union of the listed and the new extras with the package itself
# (editable), and without compiling every installed module to bytecode: Python compiles
# what it imports, and the demo's .venv stays ~100 MB smaller.
set -euo pipefail

venv=$1
want=$2
stamp=$venv/.extras
have=""
if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ]; then
  have=$(cat "$stamp")
fi

missing=""
for extra in ${want//,/ }; do
  case ",$have,$missing," in
    *",$extra,"*) ;;
    *) missing="$missing,$extra" ;;
  esac
done
missing=${missing#,}
[ -z "$missing" ] && exit 0

all=$have${have:+,}$missing
echo "pip: installing minitorch[$missing] into $venv (once)"
"$venv/bin/python" -m pip install -q --no-compile -e ".[$all]"
echo "$all" > "$stamp"
