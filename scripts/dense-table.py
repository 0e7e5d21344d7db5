#!/usr/bin/env python3
"""Table of scripts/dense-eval.sh: per sequence the label IoU, dense J and F of every
variant (mean ± sd over seeds), J of the unrefined masks (--refine none), J away
from the thin parts of the object (lines, cords narrower than 5 px), J with those thin parts
added to the masks (a bound: what completing them could give), J with the object's holes
taken out of the masks (a bound: what clearing them could give) and the DAVIS 2016
benchmark's J (first and last frame left out) where the CSV has them, the oracle's J; the means; and every variant against
uniform: paired ΔF per sequence, sequences helped, and whether the mean ΔF exceeds the
spread across seeds (the mean over sequences of the seeds' sd of F), and the same for J.

With --checkpoints CK CSV: J of the epoch checkpoints (CK, dense-eval.sh CHECKPOINTS)
beside the final J of CSV, per sequence, and the means: J against the steps trained."""
import csv, statistics as st, sys
from collections import defaultdict

if sys.argv[1] == "--checkpoints":
    ck = list(csv.DictReader(open(sys.argv[2])))
    final = {(r["sequence"], r["labels"], r["variant"], r["seed"]): r for r in csv.DictReader(open(sys.argv[3]))}
    fracs = sorted({float(r["fraction"]) for r in ck})
    cells = defaultdict(dict)  # (seq, labels, variant, seed) -> fraction -> row
    for r in ck:
        cells[(r["sequence"], r["labels"], r["variant"], r["seed"])][float(r["fraction"])] = r
    print()
    print("| sequence | variant | seed | " + " | ".join("J at %.2f of the epochs (steps)" % f for f in fracs) + " | J final |")
    print("|" + "---|" * (4 + len(fracs)))
    means = defaultdict(list)
    for key, by_f in cells.items():
        fin = final.get(key)
        if fin is None:
            continue
        row = list(key[:1]) + [key[2] + ("" if key[1] == "real" else " (%s)" % key[1]), key[3]]
        for f in fracs:
            r = by_f.get(f)
            row.append("%.1f (%s)" % (100 * float(r["j_mean"]), r["steps"]) if r else "–")
            if r:
                means[f].append(100 * float(r["j_mean"]) - 100 * float(fin["j_mean"]))
        row.append("%.1f" % (100 * float(fin["j_mean"])))
        print("| " + " | ".join(row) + " |")
    print()
    print("Mean J change against the final model: " + ", ".join(
        "%.2f of the epochs %+.2f (%d sequences)" % (f, st.mean(means[f]), len(means[f])) for f in fracs if means[f]))
    sys.exit(0)

rows = list(csv.DictReader(open(sys.argv[1])))
by = defaultdict(list)  # (seq, labels, variant) -> rows
seqs, variants = [], []
for r in rows:
    by[(r["sequence"], r["labels"], r["variant"])].append(r)
    if r["sequence"] not in seqs:
        seqs.append(r["sequence"])
    if r["labels"] == "real" and r["variant"] not in variants:
        variants.append(r["variant"])
def ms(rs, k):
    v = [100 * float(r[k]) for r in rs if r.get(k)]
    return (st.mean(v), st.stdev(v) if len(v) > 1 else 0.0) if v else (float("nan"), 0.0)
fmt = lambda m, s: "–" if m != m else ("%.1f ± %.1f" % (m, s)) if s else "%.1f" % m
# the optional columns, for the variants with a value in some row of real labels (CSVs of earlier
# runs lack them; a row of reused masks scored before a column existed has none)
optional = [(k, v) for k in ("j_unrefined", "j_away_thin", "j_with_thin", "j_without_holes", "j_benchmark")
            for v in variants if any(r.get(k) for r in rows if r["variant"] == v and r["labels"] == "real")]
keys = [("j_mean", v) for v in variants] + optional + [("f", v) for v in variants]
names = {"j_mean": "J %s", "j_unrefined": "J %s unrefined", "j_away_thin": "J %s away from thin parts",
         "j_with_thin": "J %s with the thin parts (bound)",
         "j_without_holes": "J %s without the holes (bound)",
         "j_benchmark": "J %s, DAVIS benchmark", "f": "F %s"}
head = ["sequence", "label IoU"] + [names[k] % v for k, v in keys] + ["J oracle", "train min"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
means = defaultdict(list)
for s in seqs:
    real = [r for r in rows if r["sequence"] == s and r["labels"] == "real"]
    iou = real[0]["label_iou"] if real and real[0]["label_iou"] else ""
    cells = [s, iou]
    for k, v in keys:
        m, sd = ms(by[(s, "real", v)], k)
        means[(k, v)].append(m)
        cells.append(fmt(m, sd))
    o = by[(s, "oracle", "uniform")]
    om = ms(o, "j_mean")[0] if o else float("nan")
    means["oracle"].append(om)
    cells.append("%.1f" % om if o else "–")
    mins = st.mean(float(r["train_seconds"]) for r in real) / 60 if real else float("nan")
    means["min"].append(mins)
    cells.append("%.1f" % mins if mins == mins else "–")
    if iou:
        means["iou"].append(float(iou))
    print("| " + " | ".join(cells) + " |")
cells = ["**mean**", "%.3f" % st.mean(means["iou"]) if means["iou"] else ""]
known = lambda xs: [x for x in xs if x == x]
for k, v in keys:  # a mean only over every sequence, as J's
    xs = means[(k, v)]
    cells.append("%.1f" % st.mean(xs) if xs and len(known(xs)) == len(xs) else "–")
cells += ["%.1f" % st.mean(known(means["oracle"])) if known(means["oracle"]) else "–",
          "%.1f" % st.mean(known(means["min"])) if known(means["min"]) else "–"]
print("| " + " | ".join(cells) + " |")
if "uniform" in variants and len(variants) > 1:
    for k, name in (("f", "F"), ("j_mean", "J")):
        print()
        print("| variant vs uniform | mean Δ%s | sequences helped | seed spread (sd of %s) | Δ%s > spread |" % (name, name, name))
        print("|---|---|---|---|---|")
        for v in variants:
            if v == "uniform":
                continue
            d, sds = [], []
            for s in seqs:
                a, b = by[(s, "real", v)], by[(s, "real", "uniform")]
                if a and b:
                    d.append(ms(a, k)[0] - ms(b, k)[0])
                    sds.append((ms(a, k)[1] + ms(b, k)[1]) / 2)
            if not d:
                continue
            spread = st.mean(sds)
            print("| %s | %+.2f | %d of %d | %s | %s |" % (v, st.mean(d), sum(x > 0 for x in d), len(d),
                  "%.2f" % spread if spread else "one seed", ("yes" if abs(st.mean(d)) > spread else "no") if spread else "–"))
