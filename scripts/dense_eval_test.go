package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// denseEval runs scripts/dense-eval.sh on a work folder of one sequence
// with a stand-in densify that records each call's arguments (one line per
// call) and writes what the script reads back: the set's manifest, a
// model's train.json and model.ckpt, the masks folder (prob/ with --prob)
// and an eval.json whose J is 0.5 + 0.1·r for the masks of round r (a
// folder ending in -rR/masks). It works in dir, which may hold an earlier
// run's files, and returns this run's calls and the CSV.
func denseEval(t *testing.T, dir string, env ...string) (calls []string, csv string) {
	t.Helper()
	need(t, "bash", "python3", "bc")
	if err := os.Remove(filepath.Join(dir, "calls.txt")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	root := filepath.Join(dir, "davis")
	for _, d := range []string{
		filepath.Join(work, "s"), filepath.Join(root, "JPEGImages", "480p", "s"), filepath.Join(root, "Annotations", "480p", "s"),
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "s", "sTracks3.dat"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "calls.txt")
	fake := filepath.Join(dir, "densify")
	script := `#!/bin/sh
echo "$*" >> ` + log + `
out=""; json=""; masks=""; prob=""; prev=""
for a in "$@"; do
	[ "$prev" = "--out" ] && out=$a
	[ "$prev" = "--json" ] && json=$a
	[ "$prev" = "--masks" ] && masks=$a
	[ "$a" = "--prob" ] && prob=1
	prev=$a
done
case $1 in
prepare) mkdir -p "$out" && echo '{}' > "$out/manifest.json" ;;
train) mkdir -p "$out" && echo '{}' > "$out/train.json" && : > "$out/model.ckpt" ;;
predict) mkdir -p "$out" && { [ -z "$prob" ] || mkdir -p "$out/prob"; } ;;
eval)
	r=$(echo "$masks" | sed -n 's|.*-r\([0-9]\)/masks$|\1|p'); r=${r:-0}
	echo "{\"precision\": 0.5, \"recall\": 0.5, \"f\": 0.5, \"j_mean\": 0.$((5 + r)), \"j_mean_benchmark\": 0.$((5 + r))1, \"j_mean_with_thin_parts\": 0.$((5 + r))2, \"j_mean_without_holes\": 0.$((5 + r))3}" > "$json" ;;
esac
exit 0
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "dense-eval.sh", work)
	base := callerEnvWithout("DAVIS", "DENSIFY", "TAG", "VARIANTS", "SEEDS", "FIRST_SEED", "ORACLE", "ROUNDS", "PSEUDO", "REUSE", "REUSE_MASKS",
		"UNREFINED", "SCHEDULE", "AVERAGE", "SCALE", "EPOCHS", "STEP_BUDGET", "PRESET", "BATCH", "THREADS",
		"PREPARE", "PREDICT", "SEQUENCES", "MODELS_FROM", "CHECKPOINTS", "FLOWS", "INIT")
	cmd.Env = append(base, append([]string{"DENSIFY=" + fake, "DAVIS=" + root, "ORACLE=0", "UNREFINED=0"}, env...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dense-eval.sh: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	c, err := os.ReadFile(filepath.Join(work, "dense-default.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(raw)), "\n"), string(c)
}

// INIT: the first training starts from that checkpoint, or from the
// sequence's <seq>.ckpt of a folder; the round from the first model.
func TestDenseEvalInit(t *testing.T) {
	dir := t.TempDir()
	priors := filepath.Join(dir, "priors")
	if err := os.MkdirAll(priors, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(priors, "s.ckpt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ init, want string }{
		{filepath.Join(dir, "prior.ckpt"), filepath.Join(dir, "prior.ckpt")},
		{priors, filepath.Join(priors, "s.ckpt")},
	} {
		run := t.TempDir()
		calls, _ := denseEval(t, run, "ROUNDS=1", "INIT="+c.init)
		var trains []string
		for _, call := range calls {
			if strings.HasPrefix(call, "train ") {
				trains = append(trains, call)
			}
		}
		if len(trains) != 2 {
			t.Fatalf("INIT=%s: %d trainings, want 2:\n%s", c.init, len(trains), strings.Join(calls, "\n"))
		}
		if !strings.Contains(trains[0], "--init "+c.want+" ") && !strings.HasSuffix(trains[0], "--init "+c.want) {
			t.Errorf("INIT=%s: the first training does not start from %s: %s", c.init, c.want, trains[0])
		}
		if !strings.Contains(trains[1], "--init "+filepath.Join(run, "work", "s", "dense-default", "uniform-s1", "model", "model.ckpt")) {
			t.Errorf("INIT=%s: the round does not start from the first model: %s", c.init, trains[1])
		}
	}
}

// ROUNDS=2: each round trains from the round before's model.ckpt on its
// masks, which that round predicted with --prob; the last round predicts
// without; the flags of the first training (here --schedule, --seed, and
// --keep-epochs 1, as no CHECKPOINTS reads the other epochs) and
// PSEUDO reach every round; the CSV has a row per round.
func TestDenseEvalRounds(t *testing.T) {
	calls, csv := denseEval(t, t.TempDir(), "ROUNDS=2", "SCHEDULE=cosine", "PSEUDO=--pseudo-band 3")
	var trains, predicts []string
	for _, c := range calls {
		switch strings.Fields(c)[0] {
		case "train":
			trains = append(trains, c)
		case "predict":
			predicts = append(predicts, c)
		}
	}
	if len(trains) != 3 || len(predicts) != 3 {
		t.Fatalf("%d trainings and %d predictions, want 3 and 3:\n%s", len(trains), len(predicts), strings.Join(calls, "\n"))
	}
	first := "dense-default/uniform-s1"
	for r, c := range trains {
		if !strings.Contains(c, "--seed 1") || !strings.Contains(c, "--schedule cosine") || !strings.Contains(c, "--keep-epochs 1") {
			t.Errorf("training %d lacks the seed, the schedule or --keep-epochs 1: %s", r, c)
		}
		if r == 0 {
			if strings.Contains(c, "--init") || strings.Contains(c, "--pseudo") {
				t.Errorf("the first training starts from a round: %s", c)
			}
			continue
		}
		prev := first
		if r > 1 {
			prev += "-r1"
		}
		for _, want := range []string{"--init ", prev + "/model/model.ckpt", "--pseudo ", prev + "/masks", "--pseudo-band 3", "--out "} {
			if !strings.Contains(c, want) {
				t.Errorf("round %d: %q missing in %s", r, want, c)
			}
		}
		if !strings.Contains(c, first+"-r"+string(rune('0'+r))+"/model") {
			t.Errorf("round %d trains into another folder: %s", r, c)
		}
	}
	for i, c := range predicts {
		if got, want := strings.Contains(c, "--prob"), i < 2; got != want {
			t.Errorf("prediction %d: --prob %v, want %v: %s", i, got, want, c)
		}
		if !strings.Contains(c, "--flows ") || !strings.Contains(c, filepath.Join("work", "s", "flows")) {
			t.Errorf("prediction %d does not share the sequence's flow store: %s", i, c)
		}
	}
	// Each row ends in the benchmark's J of its eval.json (0.51, 0.61, 0.71),
	// its J with the thin parts (0.52, 0.62, 0.72) and its J without the
	// holes (0.53, 0.63, 0.73).
	for _, want := range []string{",uniform,1,0.500000,0.500000,0.500000,0.500000,", ",0.510000,0.520000,0.530000\n", ",uniform-r1,1,", ",0.600000,", ",0.610000,0.620000,0.630000\n",
		",uniform-r2,1,", ",0.700000,", ",0.710000,0.720000,0.730000\n"} {
		if !strings.Contains(csv, want) {
			t.Errorf("CSV lacks %q:\n%s", want, csv)
		}
	}
}

// Without ROUNDS the script trains and predicts once per seed, without
// --prob; FIRST_SEED=3 SEEDS=2 trains seeds 3 and 4; FLOWS=0 keeps no flows.
func TestDenseEvalNoRounds(t *testing.T) {
	calls, csv := denseEval(t, t.TempDir(), "FIRST_SEED=3", "SEEDS=2", "FLOWS=0")
	var seeds []string
	for _, c := range calls {
		if strings.HasPrefix(c, "train") {
			f := strings.Fields(c)
			for i := range f[:len(f)-1] {
				if f[i] == "--seed" {
					seeds = append(seeds, f[i+1])
				}
			}
		}
		if strings.HasPrefix(c, "predict") && (strings.Contains(c, "--prob") || strings.Contains(c, "--flows")) {
			t.Errorf("a prediction without rounds writes probability maps, or one with FLOWS=0 keeps flows: %s", c)
		}
	}
	if strings.Join(seeds, " ") != "3 4" || strings.Contains(csv, "-r1") || !strings.Contains(csv, ",uniform,3,") || !strings.Contains(csv, ",uniform,4,") {
		t.Errorf("trained seeds %v, CSV:\n%s", seeds, csv)
	}
}

// REUSE=1 keeps finished models: a second run trains nothing; once the
// first model is newer than its round (trained again), the round is
// trained again and the first model is not.
func TestDenseEvalReuseRetrainsStaleRound(t *testing.T) {
	dir := t.TempDir()
	trainings := func(env ...string) (outs []string) {
		calls, _ := denseEval(t, dir, append([]string{"ROUNDS=1", "REUSE=1"}, env...)...)
		for _, c := range calls {
			if f := strings.Fields(c); f[0] == "train" {
				for i := range f[:len(f)-1] {
					if f[i] == "--out" {
						outs = append(outs, filepath.Base(filepath.Dir(f[i+1])))
					}
				}
			}
		}
		return outs
	}
	if got := strings.Join(trainings(), " "); got != "uniform-s1 uniform-s1-r1" {
		t.Fatalf("first run trained %q", got)
	}
	if got := trainings(); len(got) != 0 {
		t.Errorf("REUSE=1 trained %v again", got)
	}
	first := filepath.Join(dir, "work", "s", "dense-default", "uniform-s1", "model", "model.ckpt")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(first, later, later); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(trainings(), " "); got != "uniform-s1-r1" {
		t.Errorf("after the first model changed, REUSE=1 trained %q, want the round only", got)
	}
}
