#!/usr/bin/env bash
# Create .venv on Debian 12: apt packages if missing, a venv from /usr/bin/python3 WITHOUT system
# site packages, Debian's phcpy linked in (the only package taken from Debian), the project
# installed editable with its test extras. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PHCPY_DIR=/usr/lib/python3/dist-packages/phcpy

need=()
[ -d "$PHCPY_DIR" ] || need+=(python3-phcpy)
/usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv .venv
fi
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
ln -sfn "$PHCPY_DIR" "$site/phcpy"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
.venv/bin/python -c 'import phcpy.phcpy2c3, numag, witness' >/dev/null
# compile the numba kernels once (cached on disk; ~1 minute the first time)
.venv/bin/python -c 'import witness.kernels as k; k.warm_up()'
echo "environment ready: .venv"
