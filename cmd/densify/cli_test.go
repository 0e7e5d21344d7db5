package main

// End-to-end tests of the command line: the binary is built once and run as
// a user would, checking outputs, exit codes, file:line errors and that a
// failing command leaves no partial output.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "densify-cli")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "densify")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func densify(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.String(), err
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSynthEvalPrepareChain(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if out, err := densify(t, "synth", "--out", data, "--tracks", "--frames", "12", "--width", "160", "--height", "120", "--gt-every", "3"); err != nil {
		t.Fatalf("synth: %v\n%s", err, out)
	}
	seq := filepath.Join(data, "synth01")
	gt := filepath.Join(seq, "GroundTruth", "synth01Def.dat")
	for name, check := range map[string]func(f float64) bool{
		"synth01Tracks12_gt.dat":      func(f float64) bool { return f == 1 },
		"synth01Tracks12_corrupt.dat": func(f float64) bool { return f > 0 && f < 0.95 },
	} {
		js := filepath.Join(dir, name+".json")
		out, err := densify(t, "eval", "--gt", gt, "--tracks", filepath.Join(seq, name), "--json", js)
		if err != nil {
			t.Fatalf("eval %s: %v\n%s", name, err, out)
		}
		if f := readJSON(t, js)["f"].(float64); !check(f) {
			t.Fatalf("%s: F = %v", name, f)
		}
	}
	// segment records the background re-segmentation's shift and parts
	for _, split := range []string{"0", "1"} {
		sdir := filepath.Join(dir, "seg"+split)
		if out, err := densify(t, "segment", "--tracks", filepath.Join(seq, "synth01Tracks12_gt.dat"), "--background-split", split, "--out", sdir); err != nil {
			t.Fatalf("segment --background-split %s: %v\n%s", split, err, out)
		}
		sj := readJSON(t, filepath.Join(sdir, "segment.json"))
		if d := sj["background_split"].(float64); fmt.Sprint(d) != split {
			t.Fatalf("segment.json background_split %v, want %s", d, split)
		}
		if _, ok := sj["background_parts"]; !ok {
			t.Fatal("segment.json has no background_parts")
		}
		if sj["camera_residuals"] != "camera.csv" {
			t.Fatalf("segment.json camera_residuals %v", sj["camera_residuals"])
		}
	}
	// prepare --segment takes the background clusters and the camera
	// residuals from segment's output; a damaged camera.csv is refused,
	// naming file and line, and no set is written.
	sdir := filepath.Join(dir, "seg1")
	labelled, _ := filepath.Glob(filepath.Join(sdir, "*Tracks*.dat"))
	if len(labelled) != 1 {
		t.Fatalf("labelled tracks in %s: %v", sdir, labelled)
	}
	segSet := filepath.Join(dir, "set-seg")
	if out, err := densify(t, "prepare", "--frames", seq, "--tracks", labelled[0], "--segment", filepath.Join(sdir, "segment.json"), "--out", segSet); err != nil || !strings.Contains(out, "background trajectories left unlabelled") {
		t.Fatalf("prepare --segment: %v\n%s", err, out)
	}
	if _, ok := readJSON(t, filepath.Join(segSet, "manifest.json"))["unexplained_background_trajectories"]; !ok {
		t.Fatal("manifest has no unexplained_background_trajectories")
	}
	// --support-radius reaches Prepare, and its count is printed and
	// recorded (it is 0 on this short synthetic sequence; the rule itself
	// is tested in trainset).
	supSet := filepath.Join(dir, "set-sup")
	out, err := densify(t, "prepare", "--frames", seq, "--tracks", labelled[0], "--segment", filepath.Join(sdir, "segment.json"), "--out", supSet, "--support-radius", "4", "--support-length", "9", "--support-alone")
	if err != nil {
		t.Fatalf("prepare --support-radius: %v\n%s", err, out)
	}
	sup := readJSON(t, filepath.Join(supSet, "manifest.json"))
	if sup["parameters"].(map[string]any)["SupportRadius"] != 4.0 || sup["parameters"].(map[string]any)["SupportLength"] != 9.0 || sup["parameters"].(map[string]any)["SupportAlone"] != true ||
		!strings.Contains(out, fmt.Sprintf(", %v foreground points of short trajectories dropped (no long trajectory of their segment within 4 px)", sup["dropped_unsupported_points"])) {
		t.Fatalf("prepare --support-radius 4: manifest %v\n%s", sup["parameters"], out)
	}
	// --colour-window and --unsteady reach Prepare, and their counts are
	// printed and recorded (the rules themselves are tested in trainset).
	// --min-segment 0 gives the set a foreground; the synthetic objects
	// move smoothly, so only a tiny steadiness factor drops anything.
	colSet := filepath.Join(dir, "set-colour")
	out, err = densify(t, "prepare", "--frames", seq, "--tracks", labelled[0], "--segment", filepath.Join(sdir, "segment.json"), "--out", colSet, "--colour-window", "2", "--unsteady", "0.01", "--min-segment", "0")
	if err != nil {
		t.Fatalf("prepare --colour-window: %v\n%s", err, out)
	}
	col := readJSON(t, filepath.Join(colSet, "manifest.json"))
	dropped, _ := col["dropped_colour_points"].(float64)
	tracks, _ := col["dropped_colour_trajectories"].(float64)
	if col["parameters"].(map[string]any)["ColourWindow"] != 2.0 || (dropped > 0) != (tracks > 0) ||
		!strings.Contains(out, fmt.Sprintf("colour check: %v foreground points of %v trajectories dropped", dropped, tracks)) {
		t.Fatalf("prepare --colour-window 2: manifest %v\n%s", col["parameters"], out)
	}
	unsteady, _ := col["dropped_unsteady_points"].(float64)
	unsteadyTracks, _ := col["dropped_unsteady_trajectories"].(float64)
	if col["parameters"].(map[string]any)["Unsteady"] != 0.01 || unsteadyTracks == 0 || unsteady < unsteadyTracks ||
		!strings.Contains(out, fmt.Sprintf("steadiness: %v foreground points of %v trajectories dropped", unsteady, unsteadyTracks)) {
		t.Fatalf("prepare --unsteady 0.01: %v points of %v trajectories, parameters %v\n%s", unsteady, unsteadyTracks, col["parameters"], out)
	}
	// The background cut is on by default: its count is printed and recorded
	// (0 on these small frames, where r is 20 px; the rule itself is tested
	// in trainset); --cut-background=false turns it off, --cut-margin
	// reaches Prepare.
	cut, _ := col["cut_background_points"].(float64)
	if col["parameters"].(map[string]any)["CutBackground"] != true ||
		!strings.Contains(out, fmt.Sprintf("background cut: %v background points within", cut)) {
		t.Fatalf("prepare: background cut %v points, parameters %v\n%s", cut, col["parameters"], out)
	}
	noCut := filepath.Join(dir, "set-nocut")
	out, err = densify(t, "prepare", "--frames", seq, "--tracks", labelled[0], "--segment", filepath.Join(sdir, "segment.json"), "--out", noCut, "--cut-background=false", "--cut-margin", "3")
	if nc := readJSON(t, filepath.Join(noCut, "manifest.json")); err != nil || nc["cut_background_points"] != nil || nc["parameters"].(map[string]any)["CutMargin"] != 3.0 || strings.Contains(out, "background cut") {
		t.Fatalf("prepare --cut-background=false: %v, manifest %v\n%s", err, nc["parameters"], out)
	}
	os.WriteFile(filepath.Join(sdir, "camera.csv"), []byte("trajectory,camera_residual_median\n0,1\n1,x\n"), 0o644)
	out, err = densify(t, "prepare", "--frames", seq, "--tracks", labelled[0], "--segment", filepath.Join(sdir, "segment.json"), "--out", filepath.Join(dir, "set-seg2"))
	if err == nil || !strings.Contains(out, "camera.csv:3") {
		t.Fatalf("damaged camera.csv accepted: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "set-seg2")); err == nil {
		t.Fatal("partial training set left behind")
	}
	set := filepath.Join(dir, "set")
	if out, err := densify(t, "prepare", "--frames", seq, "--tracks", filepath.Join(seq, "synth01Tracks12_gt.dat"), "--out", set, "--min-segment", "0"); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}
	m := readJSON(t, filepath.Join(set, "manifest.json"))
	if n := len(m["frames"].([]any)); n != 12 {
		t.Fatalf("prepared %d frames, want 12", n)
	}
	// With --gt the labels' scores go into the set's label_quality.json; the
	// ground-truth tracks label the ground truth's regions.
	scored := filepath.Join(dir, "set-gt")
	scoredOut, err := densify(t, "prepare", "--frames", seq, "--tracks", filepath.Join(seq, "synth01Tracks12_gt.dat"), "--out", scored, "--min-segment", "0", "--gt", gt)
	if err != nil || !strings.Contains(scoredOut, "label quality") || !strings.Contains(scoredOut, "foreground precision by trajectory length (points):") {
		t.Fatalf("prepare --gt: %v\n%s", err, scoredOut)
	}
	lq := readJSON(t, filepath.Join(scored, "label_quality.json"))
	q := lq["labelled"].(map[string]any)
	if q["pixels"].(float64) == 0 || q["iou"].(float64) < 0.9 {
		t.Fatalf("label quality of ground-truth tracks: %v", q)
	}
	// The scores away from thin object parts count fewer pixels, and the
	// printed line gives the file's IoU.
	away := lq["away_from_thin_parts"].(map[string]any)
	if away["pixels"].(float64) == 0 || away["pixels"].(float64) > q["pixels"].(float64) ||
		!strings.Contains(scoredOut, fmt.Sprintf("away from object parts thinner than 5 px: foreground P/R/IoU %.3f/%.3f/%.3f", away["precision"], away["recall"], away["iou"])) {
		t.Fatalf("away from thin parts: %v\n%s", away, scoredOut)
	}
	// The breakdown by trajectory length covers the trajectories' pixels
	// (not the added border points), each bin labelled from the ground truth.
	bins, _ := lq["by_trajectory_length"].([]any)
	inBins := 0.0
	for _, b := range bins {
		m := b.(map[string]any)
		inBins += m["pixels"].(float64)
		if m["pixels"].(float64) > 100 && m["precision"].(float64) < 0.9 {
			t.Errorf("ground-truth tracks of %v points: foreground precision %v", m["min_points"], m["precision"])
		}
	}
	if len(bins) == 0 || inBins == 0 || inBins >= q["pixels"].(float64) {
		t.Fatalf("by trajectory length: %v (%v of %v labelled pixels)", bins, inBins, q["pixels"])
	}
	// An uncertainty file for another track set is rejected, naming file and line; no set is written.
	bad := filepath.Join(dir, "u.csv")
	os.WriteFile(bad, []byte("node,uncertainty\n0,0.5\n999999,0.1\n"), 0o644)
	out, err = densify(t, "prepare", "--frames", seq, "--tracks", filepath.Join(seq, "synth01Tracks12_gt.dat"), "--uncertainty", bad, "--out", filepath.Join(dir, "set2"))
	if err == nil || !strings.Contains(out, "u.csv:3") {
		t.Fatalf("bad uncertainty accepted: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "set2")); err == nil {
		t.Fatal("partial training set left behind")
	}
}

func TestBadInputExitsNonZeroWithFileAndLine(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "g.txt")
	os.WriteFile(graph, []byte("# comment\n3 2\n0 1 1.5 0\n1 2 nan 0\n"), 0o644)
	labels := filepath.Join(dir, "labels.txt")
	out, err := densify(t, "multicut", "--graph", graph, "--out", labels)
	if err == nil || !strings.Contains(out, "g.txt:4") {
		t.Fatalf("NaN cost: %v\n%s", err, out)
	}
	if _, err := os.Stat(labels); err == nil {
		t.Fatal("labels written for a bad graph")
	}
	tracks := filepath.Join(dir, "t.dat")
	os.WriteFile(tracks, []byte("5\n1\n0 2\n1 2 0\n1 2 x\n"), 0o644)
	out, err = densify(t, "eval", "--gt", filepath.Join(dir, "missing.dat"), "--tracks", tracks)
	if err == nil || !strings.Contains(out, "missing.dat") {
		t.Fatalf("missing ground truth: %v\n%s", err, out)
	}
	if out, err := densify(t, "no-such-command"); err == nil {
		t.Fatalf("unknown command accepted:\n%s", out)
	}
}

func TestMulticutSolvesHandInstance(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "g.txt")
	// Two attractive pairs joined by a repulsive edge, plus a repulsive lifted
	// edge 0–3: the optimum cuts 1–2 (and so the lifted edge), energy −3 − 1 = −4.
	os.WriteFile(graph, []byte("4 4\n0 1 5 0\n2 3 5 0\n1 2 -3 0\n0 3 -1 1\n"), 0o644)
	for _, solver := range []string{"gaec", "klj"} {
		labels, js := filepath.Join(dir, solver+".txt"), filepath.Join(dir, solver+".json")
		if out, err := densify(t, "multicut", "--graph", graph, "--solver", solver, "--out", labels, "--json", js); err != nil {
			t.Fatalf("%s: %v\n%s", solver, err, out)
		}
		b, _ := os.ReadFile(labels)
		if got := strings.Fields(string(b)); strings.Join(got, " ") != "0 0 1 1" {
			t.Fatalf("%s labels %q", solver, got)
		}
		m := readJSON(t, js)
		if m["energy"].(float64) != -4 || m["clusters"].(float64) != 2 {
			t.Fatalf("%s: %v", solver, m)
		}
	}
}

// KLj's search options reach the solver from the command line, and values
// that mean nothing are refused before any work, naming the flag.
func TestMulticutKLjFlags(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "g.txt")
	os.WriteFile(graph, []byte("4 4\n0 1 5 0\n2 3 5 0\n1 2 -3 0\n0 3 -1 1\n"), 0o644)
	labels, js := filepath.Join(dir, "l.txt"), filepath.Join(dir, "s.json")
	if out, err := densify(t, "multicut", "--graph", graph, "--out", labels, "--json", js,
		"--max-stall", "-1", "--full-sweep", "-1", "--levels", "2,2", "--v-cycles", "2"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if m := readJSON(t, js); m["energy"].(float64) != -4 {
		t.Fatalf("energy %v, want -4", m["energy"])
	}
	// the large-neighbourhood moves, by preset and one by one
	for _, extra := range [][]string{{"--thorough"}, {"--neighbourhood", "10", "--fusions", "1", "--seed", "3"}, {"--group-moves", "-1"}, {"--group-moves", "3"}, {"--join-evict", "-1"}, {"--join-evict", "2"}} {
		if out, err := densify(t, append([]string{"multicut", "--graph", graph, "--out", labels, "--json", js}, extra...)...); err != nil {
			t.Fatalf("%v: %v\n%s", extra, err, out)
		}
		if m := readJSON(t, js); m["energy"].(float64) != -4 {
			t.Fatalf("%v: energy %v, want -4", extra, m["energy"])
		}
	}
	for _, bad := range [][]string{
		{"--max-stall", "0"}, {"--full-sweep", "0"}, {"--levels", "1,4"}, {"--v-cycles", "0"}, {"--max-stall", "-2"},
		{"--fusions", "-1"}, {"--neighbourhood", "-1"}, {"--group-moves", "0"}, {"--group-moves", "-2"},
		{"--join-evict", "0"}, {"--join-evict", "-2"},
	} {
		out, err := densify(t, append([]string{"multicut", "--graph", graph, "--out", filepath.Join(dir, "bad.txt"), "--no-multilevel"}, bad...)...)
		if err == nil || !strings.Contains(out, bad[0]) {
			t.Errorf("%v: err %v, output %q; want an error naming %s", bad, err, out, bad[0])
		}
		if _, err := os.Stat(filepath.Join(dir, "bad.txt")); err == nil {
			t.Errorf("%v: labels written", bad)
		}
	}
}

// --join-evict reaches KLj: on the five-node instance of multicut's
// join-and-evict test (start {0,1,2} {3} {4}, energy −2) only the
// join-and-evict move reaches the optimum −3.5.
func TestMulticutJoinEvictFlag(t *testing.T) {
	dir := t.TempDir()
	graph, start := filepath.Join(dir, "g.txt"), filepath.Join(dir, "start.txt")
	os.WriteFile(graph, []byte("5 8\n0 1 10 0\n0 2 2 0\n1 2 2 0\n3 0 1.25 0\n3 1 1.25 0\n3 2 -3.5 0\n2 4 3 0\n4 0 -4 0\n"), 0o644)
	os.WriteFile(start, []byte("0\n0\n0\n1\n2\n"), 0o644)
	for _, c := range []struct {
		flag string
		want float64
	}{{"-1", -2}, {"16", -3.5}} {
		labels, js := filepath.Join(dir, "l.txt"), filepath.Join(dir, "s.json")
		if out, err := densify(t, "multicut", "--graph", graph, "--start", start, "--out", labels, "--json", js, "--join-evict", c.flag); err != nil {
			t.Fatalf("--join-evict %s: %v\n%s", c.flag, err, out)
		}
		if m := readJSON(t, js); m["energy"].(float64) != c.want {
			t.Fatalf("--join-evict %s: energy %v, want %v", c.flag, m["energy"], c.want)
		}
	}
}

// densify train on an FBMS59-layout folder runs the upstream steps and trains
// one model per sequence of the chosen split.
func TestTrainOnFBMSLayoutFolder(t *testing.T) {
	root := filepath.Join(t.TempDir(), "fbms")
	// 160×120: at 96×72 the segmentation finds no foreground in these six
	// frames, and a training set of one class is refused.
	for split, seed := range map[string]string{"Trainingset": "1", "Testset": "9"} {
		if out, err := densify(t, "synth", "--out", filepath.Join(root, split), "--count", "2", "--seed", seed,
			"--frames", "6", "--width", "160", "--height", "120", "--gt-every", "2"); err != nil {
			t.Fatalf("synth: %v\n%s", err, out)
		}
	}
	out := filepath.Join(t.TempDir(), "models")
	// --step-budget 1 leaves one whole epoch of the three asked for.
	o, err := densify(t, "train", root, "--split", "Trainingset", "--out", out, "--epochs", "3", "--step-budget", "1", "--min-segment", "0", "--quiet")
	if err != nil {
		t.Fatalf("train: %v\n%s", err, o)
	}
	if n := strings.Count(o, ": 1 epochs,"); n != 2 {
		t.Errorf("want two models of 1 epoch under --step-budget 1, got:\n%s", o)
	}
	for _, seq := range []string{"synth01", "synth02"} {
		if _, err := os.Stat(filepath.Join(out, seq, "model.ckpt")); err != nil {
			t.Fatalf("no model for %s: %v", seq, err)
		}
		if _, err := os.Stat(filepath.Join(out, "work", seq, "prepared", "manifest.json")); err != nil {
			t.Fatalf("no prepared set for %s: %v", seq, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "work", "synth03")); err == nil {
		t.Fatal("the Testset sequence was used despite --split Trainingset")
	}
	if o, err := densify(t, "train", root, "--set", out, "--out", out); err == nil {
		t.Fatalf("DATASET and --set together accepted:\n%s", o)
	}
}

// An unknown refinement is refused by name, before any work, by predict and
// by run (pipeline validation), and so are predict's graph-cut settings out
// of their ranges.
func TestRefineFlagRefusesUnknown(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"predict", "--model", filepath.Join(dir, "m.ckpt"), "--frames", dir, "--out", filepath.Join(dir, "masks"), "--refine", "crf"},
		{"run", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "work"), "--refine", "crf"},
	} {
		out, err := densify(t, args...)
		if err == nil || !strings.Contains(out, `unknown refinement "crf" (graphcut, grabcut or none)`) {
			t.Errorf("%s: err %v, output %q", args[0], err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "masks")); err == nil {
			t.Errorf("%s: output written", args[0])
		}
	}
	// predict takes the graph cut's settings from the flags of refine, with
	// their ranges.
	for flag, want := range map[string]string{"--cut-scale=2": "--cut-scale 2 is out of range: want (0, 1]", "--cuts=0": "--cuts 0 is out of range: want [1, 10]"} {
		out, err := densify(t, "predict", "--model", filepath.Join(dir, "m.ckpt"), "--frames", dir, "--out", filepath.Join(dir, "masks"), flag)
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("predict %s: err %v, output %q", flag, err, out)
		}
	}
}

// track --flows keeps the tracker's flows and predict --flows reads them:
// the masks are those predict computes without them, to the byte; a store
// made for other frames is not read, and predict says so.
func TestTrackFlowsFeedPredict(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "fbms")
	if out, err := densify(t, "synth", "--out", filepath.Join(root, "Trainingset"), "--count", "1", "--seed", "1",
		"--frames", "6", "--width", "160", "--height", "120", "--gt-every", "2"); err != nil {
		t.Fatalf("synth: %v\n%s", err, out)
	}
	models := filepath.Join(dir, "models")
	if o, err := densify(t, "train", root, "--out", models, "--epochs", "1", "--step-budget", "1", "--min-segment", "0", "--quiet"); err != nil {
		t.Fatalf("train: %v\n%s", err, o)
	}
	frames := filepath.Join(root, "Trainingset", "synth01")
	// A --flows folder holding anything else is refused and left as it is.
	foreign := filepath.Join(dir, "notes")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "draft.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := densify(t, "track", "--frames", frames, "--out", filepath.Join(dir, "u.dat"), "--flows", foreign); err == nil || !strings.Contains(o, "draft.txt") {
		t.Errorf("track --flows into a foreign folder: %v\n%s", err, o)
	}
	if b, err := os.ReadFile(filepath.Join(foreign, "draft.txt")); err != nil || string(b) != "mine" {
		t.Errorf("the foreign file: %q, %v", b, err)
	}
	flows := filepath.Join(dir, "flows")
	if o, err := densify(t, "track", "--frames", frames, "--out", filepath.Join(dir, "t.dat"), "--flows", flows); err != nil {
		t.Fatalf("track: %v\n%s", err, o)
	}
	if st, err := os.Stat(filepath.Join(flows, "00004_00005.npy")); err != nil || st.Size() < 2*4*160*120 {
		t.Fatalf("track --flows kept no flow of the last pair: %v", err)
	}
	predict := func(name string, extra ...string) (string, string) {
		out := filepath.Join(dir, name)
		args := append([]string{"predict", "--model", filepath.Join(models, "model.ckpt"), "--frames", frames, "--out", out, "--prob"}, extra...)
		o, err := densify(t, args...)
		if err != nil {
			t.Fatalf("predict %v: %v\n%s", extra, err, o)
		}
		return out, o
	}
	plain, _ := predict("plain")
	read, o := predict("read", "--flows", flows)
	if strings.Contains(o, "not read") {
		t.Errorf("the tracker's own flows were not read:\n%s", o)
	}
	for _, sub := range []string{"00000.png", "00003.png", "prob/00002.png"} {
		a, _ := os.ReadFile(filepath.Join(plain, sub))
		b, _ := os.ReadFile(filepath.Join(read, sub))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s differs with --flows (%d and %d bytes)", sub, len(a), len(b))
		}
	}
	// predict --flows into a folder without a store makes one of the flows
	// it computes, the tracker's fields to the byte; the next prediction
	// reads them (none is written again) and both give the masks of plain.
	cache := filepath.Join(dir, "cache")
	cached, _ := predict("cached", "--flows", cache)
	field := filepath.Join(cache, "00002_00003.npy")
	st, err := os.Stat(field)
	if err != nil {
		t.Fatalf("predict --flows kept no flow: %v", err)
	}
	if a, b := mustRead(t, field), mustRead(t, filepath.Join(flows, "00002_00003.npy")); string(a) != string(b) {
		t.Errorf("the kept field differs from the tracker's (%d and %d bytes)", len(a), len(b))
	}
	again, o := predict("again", "--flows", cache)
	if strings.Contains(o, "not read") {
		t.Errorf("the kept flows were not read:\n%s", o)
	}
	if st2, err := os.Stat(field); err != nil || !st2.ModTime().Equal(st.ModTime()) {
		t.Errorf("a kept field was computed and written again: %v", err)
	}
	for _, sub := range []string{"00000.png", "00003.png", "prob/00002.png"} {
		a := mustRead(t, filepath.Join(plain, sub))
		if b, c := mustRead(t, filepath.Join(cached, sub)), mustRead(t, filepath.Join(again, sub)); string(a) != string(b) || string(a) != string(c) {
			t.Errorf("%s differs with a kept store", sub)
		}
	}
	// A frame with a newer time and the same bytes (copied again): the
	// store is still read.
	later := time.Now().Add(time.Hour)
	first := filepath.Join(frames, "synth01_0001.png")
	if err := os.Chtimes(first, later, later); err != nil {
		t.Fatal(err)
	}
	if _, o := predict("touched", "--flows", flows); strings.Contains(o, "not read") {
		t.Errorf("a store of frames copied again was not read:\n%s", o)
	}
	// Frames rewritten since the tracking (a byte more after the image's
	// end): the store is refused.
	f, err := os.OpenFile(first, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, o := predict("stale", "--flows", flows); !strings.Contains(o, "the flows are computed, not read from --flows") {
		t.Errorf("a stale store was read:\n%s", o)
	}
}

// mustRead is the content of the file at p; a missing file fails the test.
func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// track --appearance reaches the tracker: a threshold no patch change
// reaches writes the tracks of the default to the byte, a small one stops
// points (counted under "appearance" in --stats), and a negative one is
// refused.
func TestTrackAppearanceFlag(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "fbms")
	if out, err := densify(t, "synth", "--out", root, "--count", "1", "--seed", "2",
		"--frames", "5", "--width", "160", "--height", "120", "--gt-every", "2"); err != nil {
		t.Fatalf("synth: %v\n%s", err, out)
	}
	frames := filepath.Join(root, "synth01")
	run := func(name string, extra ...string) (tracks string, stopped map[string]int) {
		out, stats := filepath.Join(dir, name+".dat"), filepath.Join(dir, name+".json")
		args := append([]string{"track", "--frames", frames, "--out", out, "--stats", stats}, extra...)
		if o, err := densify(t, args...); err != nil {
			t.Fatalf("track %v: %v\n%s", extra, err, o)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Stopped map[string]int `json:"stopped"`
		}
		js, err := os.ReadFile(stats)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(js, &st); err != nil {
			t.Fatal(err)
		}
		return string(b), st.Stopped
	}
	def, st := run("default")
	if st["appearance"] != 0 {
		t.Errorf("the default stopped %d points by appearance", st["appearance"])
	}
	if huge, _ := run("huge", "--appearance", "100"); huge != def {
		t.Error("--appearance 100 changed the tracks")
	}
	tiny, st := run("tiny", "--appearance", "0.2")
	if st["appearance"] == 0 || tiny == def {
		t.Errorf("--appearance 0.2 stopped %d points by appearance", st["appearance"])
	}
	if o, err := densify(t, "track", "--frames", frames, "--out", filepath.Join(dir, "n.dat"), "--appearance", "-1"); err == nil || !strings.Contains(o, "appearance") {
		t.Errorf("--appearance -1: %v\n%s", err, o)
	}
}
