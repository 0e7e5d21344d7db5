#!/usr/bin/env bash
# Best-of-n F of the n-best alternatives (Kardoost & Keuper, UAI 2021, Sec. 4.2
# and Fig. 6) on the folder scripts/sparse-eval.sh wrote: per sequence and per
# configuration, densify nbest --gt over the leave-one-sequence-out
# segmentation, then a table of best-of-n F for n = 1, 2, 3, 5, 10 and the mean
# over sequences, and how many trajectories the alternatives move.
#
# Usage: scripts/nbest-eval.sh [WORK]      (default WORK=/tmp/densify-sparse-eval)
# Environment:
#   DENSIFY   densify binary (default: built into WORK)
#   CONFIGS   configurations, "name:flags" separated by ";" (default
#             "lowest:--one-per-pair=false --merges=false;diverse:": the ten lowest
#             energies against the defaults, one alternative per cluster pair and
#             whole clusters merged)
#   N         labelings per configuration, the input included (default 10)
#   SEQUENCES space-separated subset (default: all of WORK/davis)
# Writes WORK/<seq>/nbest-<name>/ (densify nbest's files) and WORK/nbest.md.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-/tmp/densify-sparse-eval}
N=${N:-10}
CONFIGS=${CONFIGS:-"lowest:--one-per-pair=false --merges=false;diverse:"}
if [[ -z "${DENSIFY:-}" ]]; then
  DENSIFY=$WORK/densify
  (cd "$here" && go build -o "$DENSIFY" ./cmd/densify)
fi
DAVIS=$WORK/davis
[[ -d $DAVIS/JPEGImages/480p ]] || { echo "nbest-eval: $DAVIS/JPEGImages/480p missing: run scripts/sparse-eval.sh $WORK first" >&2; exit 1; }
seqs=${SEQUENCES:-$(cd "$DAVIS/JPEGImages/480p" && ls)}
IFS=';' read -ra configs <<< "$CONFIGS"
names=()
for seq in $seqs; do
  src=$WORK/$seq
  tracks=$(ls "$src"/*Tracks*.dat | head -1)
  for c in "${configs[@]}"; do
    name=${c%%:*} flags=${c#*:}
    # shellcheck disable=SC2086
    "$DENSIFY" nbest --graph "$src/graph.txt" --labels "$src/labels.txt" --tracks "$tracks" \
      --gt "$DAVIS/Annotations/480p/$seq" --n "$N" --out "$src/nbest-$name" $flags > /dev/null
  done
  echo "nbest-eval: $seq done" >&2
done
for c in "${configs[@]}"; do names+=("${c%%:*}"); done
python3 - "$WORK" "${names[*]}" $seqs <<'PY' | tee "$WORK/nbest.md"
import json, statistics as st, sys
work, names, seqs = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
ns = [1, 2, 3, 5, 10]
print("| sequence | " + " | ".join("best-of-%d F (%s)" % (n, c) for c in names for n in ns if n > 1 or c == names[0]) + " | " +
      " | ".join("moved (%s)" % c for c in names) + " |")
cols = sum(1 for c in names for n in ns if n > 1 or c == names[0]) + len(names)
print("|---|" + "---|" * cols)
means = {}
for s in seqs:
    row = [s]
    moved = []
    for c in names:
        r = json.load(open("%s/%s/nbest-%s/nbest.json" % (work, s, c)))
        b = r.get("best_of_n_f") or []
        for n in ns:
            if n == 1 and c != names[0]:
                continue
            v = 100 * b[min(n, len(b)) - 1] if b else float("nan")
            means.setdefault((c, n), []).append(v)
            row.append("%.2f" % v)
        m = [a.get("moved", 0) for a in r["alternatives"][1:]]
        moved.append("%d–%d" % (min(m), max(m)) if m else "–")
    print("| " + " | ".join(row + moved) + " |")
print("| **mean** | " + " | ".join("%.2f" % st.mean(means[(c, n)]) for c in names for n in ns if n > 1 or c == names[0]) + " |" + " |" * len(names))
PY
