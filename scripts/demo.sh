#!/usr/bin/env bash
# densify demo (make demo): the whole chain on the embedded synthetic default data.
#   1. densify synth     a synthetic FBMS-layout sequence of 50 frames with exact ground truth, its
#                        ground-truth trajectories and a copy with 10% of the labels corrupted: three objects
#                        (an articulated walker whose feet rest on the ground, an object parked
#                        for the first third that then drives off, a rigid body crossing them, so
#                        that limbs and objects occlude and uncover each other) and pixel noise of
#                        4 grey levels, as in compressed video: the cases where Kardoost & Keuper
#                        (UAI 2021) find motion segmentation uncertain. 50 frames rather than 30 give
#                        the occlusions time to happen: over five scenes the label clean-ups keep
#                        hard examples on three (docs/results.md)
#   2. densify eval      the ground-truth trajectories (must score F = 100) and the corrupted ones
#                        (lower); JSON results
#   3. densify ablate    track → segment → uncertainty → prepare, then train → predict → eval and
#                        one self-training round, for each variant on the same training set:
#                        uniform, uncertainty-weighted (hard examples × 1000) and calibrated
#                        confidence; report.md and ablation.md
# Idempotent: a second run reuses the data and skips every stage that is up to date (the work
# folder's stamps); DEMO_FRESH=1 (or rm -rf demo-out) starts over.
# Environment: DENSIFY (binary, default bin/densify), DEMO_OUT (default demo-out), SYNTH_FLAGS
# (densify synth's scene flags, default "--objects 3 --noise 4"),
# DEMO_EPOCHS (default 9: 225 steps of 2 frames, as 15 epochs were at 30 frames), DEMO_THREADS (default 0 = all cores), DEMO_SEEDS (models per variant
# in the ablation, default 2), DEMO_PHI (segment-uncertainty threshold φ of the hard-example rule;
# default: the product's, trainset.DefaultPhi).
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${DENSIFY:-bin/densify}
OUT=${DEMO_OUT:-demo-out}
EPOCHS=${DEMO_EPOCHS:-9}
THREADS=${DEMO_THREADS:-0}
# φ: hard examples are the trajectories with u_v > μ_A in segments with μ_A > φ (UAI'21 Sec. 4.3).
# The product default (0.0005) is the median μ_A of the DAVIS development segments under today's
# defaults; DEMO_PHI overrides it.
PHI=${DEMO_PHI:-}
SEEDS=${DEMO_SEEDS:-2}
SEQ=synth01
FRAMES=50
# the scene (see step 1); SYNTH_FLAGS overrides it
read -r -a SCENE <<< "${SYNTH_FLAGS:---objects 3 --noise 4}"
start=$SECONDS

die() { echo "demo: $*" >&2; exit 1; }
[ -x "$BIN" ] || die "$BIN not found; run make build first"

# json_f FILE: the top-level "f" (fraction) of an eval JSON, as a percentage with 2 decimals.
json_f() {
	local v
	v=$(grep -m1 -E '^  "f": ' "$1" | sed -E 's/.*: ([-0-9.eE+]+),?/\1/') || true
	[ -n "$v" ] || die "$1: no F value"
	awk -v f="$v" 'BEGIN { printf "%.2f", 100 * f }'
}

if [ "${DEMO_FRESH:-0}" = 1 ]; then
	rm -rf "$OUT"
fi
mkdir -p "$OUT"

echo "== 1. synthetic data → $OUT/data"
GT_TRACKS=$OUT/data/$SEQ/${SEQ}Tracks${FRAMES}_gt.dat
BAD_TRACKS=$OUT/data/$SEQ/${SEQ}Tracks${FRAMES}_corrupt.dat
# The data are generated afresh (about a second) and replace the folder's only when they differ,
# so that a folder made by an older densify does not keep its old scene while an unchanged one
# keeps its files' times (the stages of step 3 compare them with their outputs).
fresh=$(mktemp -d "$OUT/.synth.XXXXXX")
trap 'rm -rf "$fresh"' EXIT
"$BIN" synth --out "$fresh" --frames "$FRAMES" "${SCENE[@]}" --tracks > "$fresh.log" || { cat "$fresh.log" >&2; die "densify synth failed"; }
if [ -f "$GT_TRACKS" ] && [ -f "$BAD_TRACKS" ] && diff -rq "$fresh" "$OUT/data" > /dev/null; then
	echo "   reusing $OUT/data (the same as densify synth writes now; DEMO_FRESH=1 starts over)"
else
	[ -d "$OUT/data" ] && echo "   $OUT/data differs from what densify synth writes now: replaced, and the run below redoes its stages"
	rm -rf "$OUT/data"
	mv "$fresh" "$OUT/data"
	cat "$fresh.log"
fi
rm -f "$fresh.log"

echo
echo "== 2. scoring trajectory files against the ground truth (FBMS protocol)"
"$BIN" eval --gt "$OUT/data/$SEQ" --tracks "$GT_TRACKS" --json "$OUT/eval-gt.json"
"$BIN" eval --gt "$OUT/data/$SEQ" --tracks "$BAD_TRACKS" --json "$OUT/eval-corrupt.json"
f_gt=$(json_f "$OUT/eval-gt.json")
f_bad=$(json_f "$OUT/eval-corrupt.json")
echo "F(ground-truth tracks) = $f_gt %, F(corrupted tracks) = $f_bad %"
[ "$f_gt" = "100.00" ] || die "the ground-truth trajectories score F = $f_gt, expected 100"
awk -v a="$f_bad" 'BEGIN { exit !(a < 100) }' || die "the corrupted trajectories score F = $f_bad, expected < 100"

echo
echo "== 3. densify ablate: track → segment → uncertainty → prepare → (train → predict → eval, then one self-training round) × {uniform, weighted, confidence} × $SEEDS seeds"
phi_flag=()
[ -n "$PHI" ] && phi_flag=(--phi "$PHI")
# --init none --rounds 1: the networks learn from the sparse labels alone, from a random
# initialisation, with one self-training round. The embedded starting weights (the default of run
# and ablate on real video) were trained on DAVIS videos, not on this synthetic scene, and would
# stand between the hard examples and what the variants learn.
"$BIN" ablate "$OUT/data/$SEQ" --out "$OUT/run" --epochs "$EPOCHS" --threads "$THREADS" \
	--variants uniform,weighted,confidence --seeds "$SEEDS" "${phi_flag[@]}" --heatmap-every 5 \
	--init none --rounds 1

# What to look at: the hard examples (training set), the most uncertain trajectory's heat map,
# the sparsification curve and the ablation table.
W=$OUT/run/$SEQ
hard=$(grep -m1 -oE '[0-9]+ hard-example pixels \([0-9]+ trajectories\)' "$OUT/run/report.md" || echo "no hard-example line")
auc=$(grep -m1 -oE 'proposed [0-9.]+, likelihood [0-9.]+, random [0-9.]+' "$OUT/run/report.md" || echo "no sparsification")
# lower is better: the ordering that removes the wrong trajectories first lowers VI fastest
order="no ordering to compare"
[[ $auc == proposed* ]] && order=$(awk '{ p = $2 + 0; l = $4 + 0; r = $6 + 0
	printf "%s", (p < l ? "u ranks the wrong trajectories first better than the likelihood" : "the likelihood ranks the wrong trajectories first better than u")
	printf "%s", (p < r && l < r ? ", both better than random" : ", not both better than random") }' <<< "${auc//,/}")
# preview of the training frame with most hard-example pixels (per-frame entries of the manifest)
preview=$(grep -E '^      "(preview|hard_pixels)"' "$W/prepared/manifest.json" | paste - - |
	sed -E 's/.*"preview": "([^"]+)".*"hard_pixels": ([0-9]+).*/\2 \1/' | sort -n | tail -1)
# heat map of the labelled frame nearest to the middle of the most uncertain trajectory
top=$(awk -F, 'NR > 1 && $4 > best { best = $4; node = $1 } END { if (node != "") print node, best }' "$W/uncertainty/uncertainty.csv")
heat=""
if [ -n "$top" ]; then
	node=${top%% *}
	# FBMS tracks file: frames, count, then per track "label n" and n lines "x y frame"
	mid=$(awk -v want="$node" 'BEGIN { first = -1 } NR <= 2 { next } left == 0 { n++; left = $2; next }
		{ left--; if (n - 1 == want) { if (first < 0) first = $3; last = $3 } }
		END { print int((first + last) / 2) }' "$(ls "$W"/segment/*Tracks*.dat | head -1)")
	best=""
	for h in "$W"/uncertainty/heatmaps/heat_*.png; do
		f=$(basename "$h" .png); f=$((10#${f#heat_}))
		d=$((f > mid ? f - mid : mid - f))
		if [ -z "$best" ] || [ "$d" -lt "$best" ]; then best=$d; heat=$h; fi
	done
fi

where="most in $W/prepared/${preview#* } (${preview%% *} px, red squares)"
if [[ -z $preview || ${preview%% *} == 0 ]]; then
	# manifest counts: hard trajectories, and their points the label clean-ups dropped
	htracks=$(grep -m1 -oE '"hard_trajectories": [0-9]+' "$W/prepared/manifest.json" | grep -oE '[0-9]+$' || echo 0)
	hdropped=$(grep -m1 -oE '"dropped_hard_points": [0-9]+' "$W/prepared/manifest.json" | grep -oE '[0-9]+$' || echo 0)
	if [[ $htracks -gt 0 ]]; then
		where="no pixel in any frame: the label clean-ups (colour check, support radius, isolated points) dropped all $hdropped points of the $htracks hard trajectories as likely wrong, so the weighted variant trains as uniform does"
	else
		where="none in any frame (no trajectory qualifies), so the weighted variant trains as uniform does"
	fi
fi

elapsed=$((SECONDS - start))
cat <<EOF

== demo finished in ${elapsed}s
  data               $OUT/data/$SEQ (frames, GroundTruth/, trajectory files)
  trajectory scores  $OUT/eval-gt.json (F = $f_gt %), $OUT/eval-corrupt.json (F = $f_bad %)
  report             $OUT/run/report.md, $OUT/run/report.json
  ablation           $OUT/run/ablation.md, $OUT/run/ablation.csv (uniform / hard examples / confidence, $SEEDS seeds)
  hard examples      $hard (φ = ${PHI:-default}); $where
  uncertainty        most uncertain trajectory: node ${top:-none}; heat map ${heat:-none}
  sparsification     VI-AUC $auc ($order): $W/uncertainty/sparsify/vi.png
  per stage          $OUT/run/$SEQ/{tracks.dat,segment/,uncertainty/,prepared/,model-{uniform,weighted,confidence}*/,masks-*/,eval/}
  plots / previews   $OUT/run/$SEQ/uncertainty/sparsify/vi.png, $OUT/run/$SEQ/uncertainty/heatmaps/,
                     $OUT/run/$SEQ/preview-{uniform,weighted}{,-round1}.png (before and after the self-training
                     round), $OUT/run/$SEQ/masks-weighted-round1/overlay/
EOF
echo
sed -n '/^| sequence/,$p' "$OUT/run/ablation.md"
