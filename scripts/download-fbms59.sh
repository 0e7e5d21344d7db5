#!/usr/bin/env bash
# Downloads FBMS59 (Ochs, Malik, Brox, TPAMI 2014) into DEST with the layout
# that `densify train` reads: DEST/Trainingset/<seq>/..., DEST/Testset/<seq>/...
# (frames <seq>_NNNN.jpg and GroundTruth/<seq>Def.dat with label images).
# Usage: scripts/download-fbms59.sh DEST
# Resumable and idempotent. The Freiburg site publishes no checksums: the
# SHA-256 of the first download is recorded beside the archive and verified
# afterwards; set FBMS_TRAIN_SUM / FBMS_TEST_SUM ("sha256:<hex>" or
# "md5:<hex>") to pin known values. FBMS_BASE_URL overrides the source (tests
# use a file:// URL).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=download-lib.sh
. "$here/download-lib.sh"

[ $# -eq 1 ] || { say "usage: $0 DEST"; exit 2; }
dest=$1
base=${FBMS_BASE_URL:-https://lmb.informatik.uni-freiburg.de/resources/datasets/fbms}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if [ -f "$dest/.fbms59-complete" ]; then
	say "FBMS59 is already in $dest"
	exit 0
fi
for split in Trainingset Testset; do
	if [ -f "$dest/.fbms59-$split" ]; then
		say "FBMS59 $split already unpacked"
		continue
	fi
	var=FBMS_TRAIN_SUM
	[ "$split" = Testset ] && var=FBMS_TEST_SUM
	fetch_archive "$base/FBMS_$split.zip" "$dest/.downloads/FBMS_$split.zip" "${!var:-}"
	extract_archive "$dest/.downloads/FBMS_$split.zip" "$dest" "$split"
	touch "$dest/.fbms59-$split"
done
n=$(find "$dest/Trainingset" "$dest/Testset" -mindepth 1 -maxdepth 1 -type d | wc -l)
touch "$dest/.fbms59-complete"
say "FBMS59: $n sequences in $dest (archives stay in $dest/.downloads; delete them to save space)"
