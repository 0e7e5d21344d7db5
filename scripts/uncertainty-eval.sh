#!/usr/bin/env bash
# Uncertainty evaluation: on synthetic sequences and the
# five DAVIS 2016 development sequences, segment (densify segment), compute the
# per-trajectory uncertainty with heat maps, the sparsification curves (VI/RI
# against density for proposed / likelihood / random) and the n-best
# alternatives with best-of-n F.
#
#   scripts/uncertainty-eval.sh [OUT]        (default OUT=/tmp/densify-uncertainty-eval)
#
# Environment: DENSIFY (binary; built when unset), DAVIS (davis2016-dev root;
# default ../shared/data/davis2016-dev), SYNTH_COUNT (default 3), NBEST (10),
# SEGMENT_FLAGS (extra flags for densify segment), SKIP_DAVIS=1, SKIP_SYNTH=1.
# Existing segmentations in OUT are reused (delete OUT to start over).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/densify-uncertainty-eval}
davis=${DAVIS:-$root/../shared/data/davis2016-dev}
nbest=${NBEST:-10}
synth_count=${SYNTH_COUNT:-3}
seg_flags=${SEGMENT_FLAGS:-}
mkdir -p "$out"

bin=${DENSIFY:-}
if [[ -z "$bin" ]]; then
	bin=$out/densify
	(cd "$root" && go build -o "$bin" ./cmd/densify)
fi

# run_sequence NAME FRAMES_DIR GT SEGMENT_INPUT_FLAGS... : segment, uncertainty, nbest
run_sequence() {
	local name=$1 frames=$2 gt=$3
	shift 3
	local dir=$out/$set/$name
	if [[ ! -f $dir/graph.txt || ! -f $dir/labels.txt ]]; then
		echo "== segment $set/$name" >&2
		# shellcheck disable=SC2086
		"$bin" segment "$@" --frames "$frames" --out "$dir" $seg_flags >"$dir.segment.log" 2>&1 ||
			{ tail -5 "$dir.segment.log" >&2; return 1; }
	fi
	local tracks
	tracks=$(ls "$dir"/*Tracks*.dat | head -1)
	echo "== uncertainty $set/$name" >&2
	"$bin" uncertainty --graph "$dir/graph.txt" --labels "$dir/labels.txt" --out "$dir/uncertainty.csv" \
		--clusters "$dir/clusters.json" --tracks "$tracks" --frames "$frames" --heatmaps "$dir/heatmaps" --every 10 \
		>"$dir/uncertainty.txt"
	echo "== nbest $set/$name" >&2
	"$bin" nbest --graph "$dir/graph.txt" --labels "$dir/labels.txt" --tracks "$tracks" --gt "$gt" \
		--n "$nbest" --out "$dir/nbest" >"$dir/nbest.txt"
	"$bin" nbest --graph "$dir/graph.txt" --labels "$dir/labels.txt" --tracks "$tracks" --gt "$gt" \
		--n "$nbest" --one-per-pair=false --merges=false --out "$dir/nbest-lowest" >"$dir/nbest-lowest.txt"
	echo "$name $dir/graph.txt $dir/labels.txt $tracks $gt" >>"$out/$set/list.txt"
}

if [[ -z "${SKIP_SYNTH:-}" ]]; then
	set=synth
	mkdir -p "$out/$set"
	: >"$out/$set/list.txt"
	if [[ ! -d $out/synth-data ]]; then
		"$bin" synth --out "$out/synth-data" --count "$synth_count" --frames 30 --tracks >/dev/null
	fi
	for seqdir in "$out"/synth-data/*/; do
		seq=$(basename "$seqdir")
		gtdat=$(ls "$seqdir"GroundTruth/*Def.dat | head -1)
		gttracks=$(ls "$seqdir"*Tracks*_gt.dat | head -1)
		# segment the true trajectories of the scene (their labels are not used)
		run_sequence "$seq" "$seqdir" "$gtdat" --tracks "$gttracks"
	done
	"$bin" sparsify --dataset "$out/$set/list.txt" --out "$out/$set/sparsify" | tee "$out/$set/sparsify.txt"
fi

if [[ -z "${SKIP_DAVIS:-}" ]]; then
	set=davis
	mkdir -p "$out/$set"
	: >"$out/$set/list.txt"
	for seq in blackswan car-shadow dog libby motocross-jump; do
		run_sequence "$seq" "$davis/JPEGImages/480p/$seq" "$davis/Annotations/480p/$seq"
	done
	"$bin" sparsify --dataset "$out/$set/list.txt" --out "$out/$set/sparsify" | tee "$out/$set/sparsify.txt"
fi

# best-of-n F table from the nbest.json files
for set in synth davis; do
	[[ -f $out/$set/list.txt ]] || continue
	echo "best-of-n F ($set; n = 1 … $nbest): lowest energies | the defaults (one per cluster pair, whole clusters merged)"
	for j in "$out/$set"/*/nbest/nbest.json; do
		name=$(basename "$(dirname "$(dirname "$j")")")
		python3 - "$(dirname "$(dirname "$j")")/nbest-lowest/nbest.json" "$j" "$name" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1])).get("best_of_n_f", [])
b = json.load(open(sys.argv[2])).get("best_of_n_f", [])
f = lambda v: " ".join("%.4f" % x for x in v)
print("%-16s %s | %s" % (sys.argv[3], f(a), f(b)))
EOF
	done
done
