#!/usr/bin/env bash
# KLj against andres/graph's Kernighan–Lin on the motion graphs this pipeline
# builds from DAVIS sequences: energy parity and speed.
#   densify segment --solver gaec (the graph of every sequence at every β,
#   with the held-out cost model of scripts/sparse-eval.sh) → densify
#   multicut (KLj from GAEC, the default and --thorough) → andres/graph's
#   GAEC + KLj on the same file, when ANDRES names its driver.
#
# Usage: scripts/klj-eval.sh [WORK]   (default WORK=/tmp/densify-sparse-eval,
#        the folder scripts/sparse-eval.sh wrote: its folds/ and tracks)
# Environment:
#   DAVIS      DAVIS root (default ../shared/data/davis2016-dev)
#   DENSIFY    densify binary (default: built into WORK)
#   TRACKS     folder of <seq>Tracks<N>.dat (default WORK/tracks)
#   BETAS      prior cut probabilities β, space-separated (default "0.5 0.1")
#   MODES      densify settings, space-separated: default, thorough (default both)
#   ANDRES     andres/graph driver built from ../shared/bench/andres_mc.cpp
#              outside the repository (see its README); without it only
#              densify's columns are filled
#   SEQUENCES  space-separated subset (default: all)
#   REPS       runs of each solver on each graph, the fastest counts (default
#              3: on a shared machine single wall-clock times vary by 10–20 %)
#
# Prints per graph (sequence, β): nodes, edges, andres' KLj energy and
# seconds (GAEC + KLj, graph building excluded), and per densify mode the
# energy minus andres' (negative: densify lower) and andres' time over
# densify's (solve only, file reading excluded on both sides); then how many
# graphs reach parity, how many are at least 10× faster, and both. Run it on
# an otherwise idle machine: the times are wall-clock. Everything is also in
# WORK/klj/table.md and WORK/klj/table.csv.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-/tmp/densify-sparse-eval}
DAVIS=${DAVIS:-$here/../shared/data/davis2016-dev}
TRACKS=${TRACKS:-$WORK/tracks}
BETAS=${BETAS:-0.5 0.1}
MODES=${MODES:-default thorough}
REPS=${REPS:-3}
ANDRES=${ANDRES:-}
if [[ ! $REPS =~ ^[1-9][0-9]*$ ]]; then
  echo "klj-eval: REPS must be a count ≥ 1, got '$REPS'" >&2
  exit 1
fi
if [[ ! -d $WORK/folds ]]; then
  echo "klj-eval: no cost models in $WORK/folds: run scripts/sparse-eval.sh $WORK first" >&2
  exit 1
fi
if [[ -n $ANDRES && ! -x $ANDRES ]]; then
  echo "klj-eval: ANDRES=$ANDRES is not an executable" >&2
  exit 1
fi
if [[ -z "${DENSIFY:-}" ]]; then
  DENSIFY=$WORK/densify
  (cd "$here" && go build -o "$DENSIFY" ./cmd/densify)
fi
out=$WORK/klj
mkdir -p "$out"
seqs=${SEQUENCES:-$(cd "$DAVIS/JPEGImages/480p" && ls)}
echo "sequence,beta,nodes,edges,mode,energy,seconds" > "$out/table.csv.tmp"
for seq in $seqs; do
  d=$DAVIS/JPEGImages/480p/$seq
  n=$(find "$d" -maxdepth 1 -name '*.jpg' | wc -l)
  for beta in $BETAS; do
    g=$out/$seq-b$beta
    if [[ ! -s $g/graph.txt ]]; then
      "$DENSIFY" segment --tracks "$TRACKS/${seq}Tracks$n.dat" --frames "$d" --beta "$beta" \
        --model "$WORK/folds/$seq.json" --solver gaec --out "$g" > "$g.segment.txt"
    fi
    size=$(awk '!/^#/ { print $1 "," $2; exit }' "$g/graph.txt")
    for mode in $MODES; do
      flags=()
      case $mode in
        default) ;;
        thorough) flags=(--thorough) ;;
        *) echo "klj-eval: unknown mode $mode (default, thorough)" >&2; exit 1 ;;
      esac
      rm -f "$g/$mode"-[0-9]*.json
      for ((r = 1; r <= REPS; r++)); do
        "$DENSIFY" multicut --graph "$g/graph.txt" --out "$g/labels-$mode.txt" --json "$g/$mode-$r.json" "${flags[@]}" > "$g/$mode.log" 2>&1
      done
      python3 -c 'import json,sys; js=[json.load(open(f)) for f in sys.argv[5:]]; j=min(js, key=lambda j: j["seconds"]); print("%s,%s,%s,%s,%.6f,%.4f" % (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], j["energy"], j["seconds"]))' \
        "$seq" "$beta" "$size" "$mode" "$g/$mode"-[0-9]*.json >> "$out/table.csv.tmp"
    done
    if [[ -n $ANDRES ]]; then
      if [[ ! -s $g/andres.json ]]; then
        # the fastest of REPS runs
        rm -f "$g"/andres-[0-9]*.json
        for ((r = 1; r <= REPS; r++)); do
          "$ANDRES" "$g/graph.txt" > "$g/andres-$r.json"
        done
        python3 -c 'import json,shutil,sys; f=min(sys.argv[2:], key=lambda f: (lambda j: j["gaec_s"]+j["klj_s"])(json.load(open(f)))); shutil.copy(f, sys.argv[1])' \
          "$g/andres.json.tmp" "$g"/andres-[0-9]*.json
        mv "$g/andres.json.tmp" "$g/andres.json"
      fi
      python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("%s,%s,%s,andres,%.6f,%.4f" % (sys.argv[2], sys.argv[3], sys.argv[4], j["klj_energy"], j["gaec_s"]+j["klj_s"]))' \
        "$g/andres.json" "$seq" "$beta" "$size" >> "$out/table.csv.tmp"
    fi
    echo "klj-eval: $seq β=$beta done" >&2
  done
done
mv "$out/table.csv.tmp" "$out/table.csv"
python3 - "$out/table.csv" "$MODES" <<'EOF' | tee "$out/table.md"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
modes = sys.argv[2].split()
graphs = {}
for r in rows:
    graphs.setdefault((r["sequence"], r["beta"]), {"nodes": r["nodes"], "edges": r["edges"]})[r["mode"]] = (float(r["energy"]), float(r["seconds"]))
head = "| sequence | β | nodes | edges | andres KLj | andres s |"
rule = "|---|---|---:|---:|---:|---:|"
for m in modes:
    head += f" {m} − andres | {m} s | andres / {m} |"
    rule += "---:|---:|---:|"
print(head)
print(rule)
count = {m: [0, 0, 0] for m in modes}
for (seq, beta), g in graphs.items():
    a = g.get("andres")
    line = f"| {seq} | {beta} | {g['nodes']} | {g['edges']} | " + (f"{a[0]:,.1f} | {a[1]:.2f} |" if a else "– | – |")
    for m in modes:
        e, s = g[m]
        if a:
            parity, fast = e <= a[0] + 1e-3 + 1e-9 * abs(a[0]), a[1] >= 10 * s  # andres prints 4 decimals
            count[m][0] += parity
            count[m][1] += fast
            count[m][2] += parity and fast
            line += f" {e - a[0]:+,.1f} | {s:.2f} | {a[1] / s:.1f}× |"
        else:
            line += f" {e:,.1f} | {s:.2f} | – |"
    print(line)
if any("andres" in g for g in graphs.values()):
    n = sum("andres" in g for g in graphs.values())
    for m in modes:
        p, f, b = count[m]
        print(f"\n{m}: parity (energy at most andres') on {p}/{n} graphs, at least 10× faster on {f}/{n}, both on {b}/{n}")
EOF
