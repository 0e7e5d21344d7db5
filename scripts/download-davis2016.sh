#!/usr/bin/env bash
# Downloads DAVIS 2016 (Perazzi et al., CVPR 2016; 480p frames and masks) into
# DEST with the official layout that `densify train` reads:
#   DEST/JPEGImages/480p/<seq>/00000.jpg, DEST/Annotations/480p/<seq>/00000.png,
#   DEST/ImageSets/...
# Usage: scripts/download-davis2016.sh DEST
# Resumable (run again after an interruption), idempotent (a finished download
# is not repeated), checked against the MD5 published with the official
# download script. DAVIS_URL and DAVIS_MD5 override the source (tests use a
# file:// URL). The data is for research use under the DAVIS terms.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=download-lib.sh
. "$here/download-lib.sh"

[ $# -eq 1 ] || { say "usage: $0 DEST"; exit 2; }
dest=$1
url=${DAVIS_URL:-https://graphics.ethz.ch/Downloads/Data/Davis/DAVIS-data.zip}
sum=${DAVIS_MD5-md5:0cb3cf9c5617209fa3cc4794e52a2ffa}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if [ -f "$dest/.davis2016-complete" ]; then
	say "DAVIS 2016 is already in $dest"
	exit 0
fi
fetch_archive "$url" "$dest/.downloads/DAVIS-data.zip" "$sum"
extract_archive "$dest/.downloads/DAVIS-data.zip" "$dest" DAVIS/JPEGImages DAVIS/Annotations DAVIS/ImageSets
n=$(find "$dest/JPEGImages/480p" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$n" -gt 0 ] || die "no sequences in $dest/JPEGImages/480p after unpacking"
touch "$dest/.davis2016-complete"
say "DAVIS 2016: $n sequences in $dest (the archive stays in $dest/.downloads; delete it to save space)"
