#!/usr/bin/env bash
# scripts/setup-slurm.sh — install what the Slurm end-to-end test needs (cmd/densify
# TestSlurmEndToEnd, internal/slurmtest): Debian's slurm-wlm (slurmctld, slurmd, the client
# commands) and munge. `make test` runs it after scripts/setup.sh. Idempotent and silent when both
# are installed. It only installs packages: the test writes its own slurm.conf and munge key in a
# temporary folder and starts (and stops) its own daemons; the machine's Slurm and munge
# configuration is neither used nor changed.
#
# Without apt-get, or without root and sudo, it says so and leaves the test to skip.
# SETUP_SLURM=0 skips this step.
set -euo pipefail

say() { echo "setup-slurm: $*" >&2; }

[ "${SETUP_SLURM:-1}" = 0 ] && exit 0
pkgs=(slurm-wlm munge)
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
	say "no apt-get: install ${missing[*]} by hand, or the Slurm end-to-end test skips"
	exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null; then
		say "not root and no sudo: ${missing[*]} not installed; the Slurm end-to-end test skips"
		exit 0
	fi
	SUDO=sudo
fi
say "installing ${missing[*]} with apt-get (about a minute)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
	cat "$log" >&2
	say "ERROR: apt-get could not install ${missing[*]}"
	exit 1
fi
