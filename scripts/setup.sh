#!/usr/bin/env bash
# Installs what Jeet needs on Debian 12: LLVM/MLIR 22 and the build tools from
# apt, the Python packages from pip. Idempotent: when everything is there it
# only checks, in a second or two.
set -euo pipefail
python=$1
apt_packages=$2
pip_packages=$3

missing=()
for p in $apt_packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Installed distributions are looked up by their names (scikit-build-core
# is imported as scikit_build_core).
if ! "$python" -c 'import sys, importlib.metadata as m; [m.version(p) for p in sys.argv[1:]]' \
    $pip_packages >/dev/null 2>&1; then
  echo "setup: pip installing $pip_packages"
  "$python" -m pip install -q $pip_packages
fi
echo "setup: ok"
