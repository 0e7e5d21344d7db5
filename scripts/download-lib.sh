# shellcheck shell=bash
# Shared functions of the dataset download scripts (sourced, not run).
#
# fetch_archive URL FILE CHECKSUM
#   Downloads URL to FILE, resumably: the bytes go to FILE.part, which curl
#   continues (-C -) after an interruption; FILE appears only when complete.
#   CHECKSUM is "md5:<hex>" or "sha256:<hex>" (published checksum), or empty:
#   then the SHA-256 of the first complete download is recorded in
#   FILE.sha256 and later runs verify against it (trust on first use).
# extract_archive FILE DEST PREFIX...
#   Tests the zip, unpacks it into a temporary folder beside DEST and moves the
#   folders named by PREFIX (paths inside the archive) into DEST; nothing of a
#   failed extraction is left in DEST.

say() { printf '%s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

need() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || die "'$c' is not installed (Debian: apt-get install $c)"
	done
}

file_sum() { # ALGO FILE
	case "$1" in
	md5) md5sum "$2" | cut -d' ' -f1 ;;
	sha256) sha256sum "$2" | cut -d' ' -f1 ;;
	*) die "unknown checksum algorithm $1" ;;
	esac
}

verify_archive() { # FILE CHECKSUM → 0 ok, 1 mismatch
	local file=$1 want=$2 algo hex got
	if [ -z "$want" ]; then
		if [ -f "$file.sha256" ]; then
			want="sha256:$(cat "$file.sha256")"
		else
			got=$(file_sum sha256 "$file")
			echo "$got" >"$file.sha256"
			say "note: no published checksum for $(basename "$file"); recorded SHA-256 $got in $file.sha256"
			return 0
		fi
	fi
	algo=${want%%:*}
	hex=${want#*:}
	got=$(file_sum "$algo" "$file")
	if [ "$got" != "$hex" ]; then
		say "checksum mismatch for $file: $algo $got, expected $hex"
		return 1
	fi
	say "checksum ok ($algo) for $(basename "$file")"
}

fetch_archive() { # URL FILE CHECKSUM
	local url=$1 file=$2 sum=$3
	need curl
	mkdir -p "$(dirname "$file")"
	if [ -f "$file" ]; then
		say "already downloaded: $file"
	else
		say "downloading $url"
		say "  to $file (resumable: run the script again after an interruption)"
		local try
		for try in 1 2 3; do
			# -C - continues a .part file; 416 means it was already complete.
			if curl -fL --retry 5 --retry-delay 5 --connect-timeout 30 -C - \
				--progress-bar -o "$file.part" "$url"; then
				break
			fi
			[ "$try" = 3 ] && die "download of $url failed (partial data kept in $file.part; run again to resume)"
			say "download interrupted, resuming (attempt $((try + 1)) of 3)"
			sleep 2
		done
		mv "$file.part" "$file"
	fi
	if ! verify_archive "$file" "$sum"; then
		mv "$file" "$file.bad"
		die "the archive is corrupt or not the expected file; moved to $file.bad. Delete it and run again."
	fi
}

extract_archive() { # FILE DEST PREFIX...
	local file=$1 dest=$2
	shift 2
	need unzip
	unzip -tq "$file" >/dev/null || die "$file is not a valid zip archive (delete it and run again)"
	local tmp
	tmp=$(mktemp -d "$dest/.extract.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	say "unpacking $(basename "$file")"
	unzip -q "$file" -d "$tmp" || die "unpacking $file failed"
	local p name
	for p in "$@"; do
		[ -e "$tmp/$p" ] || die "$file has no '$p' folder: not the expected archive"
	done
	for p in "$@"; do
		name=$(basename "$p")
		rm -rf "${dest:?}/$name"
		mv "$tmp/$p" "$dest/$name"
	done
	rm -rf "$tmp"
	trap - EXIT
}
