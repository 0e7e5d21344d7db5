package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/densify/densify/internal/testutil"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/synth"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/uncertainty"
)

// tinySequence writes a small synthetic sequence (FBMS layout, ground truth
// every 4 frames) and its ground-truth trajectories; it returns the root
// folder holding the sequence and the tracks path.
func tinySequence(t *testing.T) (root, tracks string) {
	t.Helper()
	root = t.TempDir()
	p := synth.DefaultParams()
	p.Width, p.Height, p.Frames, p.Objects, p.GTEvery = 96, 72, 8, 1, 4
	s, err := synth.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(root, "tiny"); err != nil {
		t.Fatal(err)
	}
	tracks = filepath.Join(t.TempDir(), "tinyTracks8_gt.dat")
	if err := trajectory.WriteTracks(tracks, s.GroundTruthTracks(4)); err != nil {
		t.Fatal(err)
	}
	return root, tracks
}

func testOptions(tracks string, d Densifier, log *bytes.Buffer) Options {
	opt := DefaultOptions()
	if tracks != "" {
		opt.TracksFor = func(string) string { return tracks }
	}
	opt.Densifier = d
	opt.Log, opt.Progress = log, log
	opt.Sparsify.Seeds = 2
	opt.HeatmapEvery = 4
	opt.Prepare.MinSegment = 3
	// one training per variant and seed: the self-training rounds have
	// their own test (rounds_test.go)
	opt.Train.Rounds = 0
	// the tiny synthetic sequence has exact trajectories: the model fitted on
	// synthetic sequences (the default is fitted on real video)
	opt.Segment.Model, _ = motiongraph.NamedCostModel("synthetic")
	return opt
}

func stageMap(rep *Report) map[string]StageStatus {
	m := map[string]StageStatus{}
	for _, s := range rep.Sequences[0].Stages {
		m[s.Stage] = s
	}
	return m
}

func ran(t *testing.T, rep *Report, want map[string]bool) {
	t.Helper()
	got := stageMap(rep)
	for name, run := range want {
		s, ok := got[name]
		if !ok {
			t.Errorf("stage %s missing (have %v)", name, got)
			continue
		}
		if s.Skipped == run {
			t.Errorf("stage %s: skipped = %v, want %v (%s)", name, s.Skipped, !run, s.Reason)
		}
	}
}

var allStages = []string{"track", "segment", "uncertainty", "eval-sparse", "prepare",
	"train-uniform", "predict-uniform", "eval-dense-uniform"}

func all(run bool) map[string]bool {
	m := map[string]bool{}
	for _, s := range allStages {
		m[s] = run
	}
	return m
}

func TestRunStagesSkipAndRerun(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	var log bytes.Buffer
	fd := &fakeDensifier{}
	opt := testOptions(tracks, fd, &log)
	ctx := context.Background()

	rep, err := Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	ran(t, rep, all(true))
	s := rep.Sequences[0]
	if s.Trajectories == 0 || s.Clusters < 2 || s.Sparse == nil || s.Dense[DefaultVariant].Scores == nil {
		t.Fatalf("incomplete result: %+v", s)
	}
	// Ground-truth trajectories segmented by the multicut: the sparse
	// segmentation finds the object.
	if s.Sparse.F < 0.6 {
		t.Errorf("sparse F = %.3f on ground-truth trajectories, want ≥ 0.6", s.Sparse.F)
	}
	lay := Layout{Dir: filepath.Join(work, "tiny"), Name: "tiny"}
	for _, p := range []string{lay.Tracks(), lay.Graph(), lay.Labels(), lay.LabelledTracks(8), lay.SegmentJSON(), lay.CameraResiduals(),
		lay.UncertaintyCSV(), lay.ClustersCSV(), filepath.Join(lay.Heatmaps(), "heat_00000.png"),
		filepath.Join(lay.SparsifyDir(), "vi.png"), filepath.Join(lay.Prepared(), "manifest.json"),
		filepath.Join(lay.Masks(string(DefaultVariant)), "00007.png"), lay.SparseEval(), lay.DenseEval(string(DefaultVariant)),
		filepath.Join(lay.Dir, "preview-uniform.png"), filepath.Join(work, "report.md"), filepath.Join(work, "report.json")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	segInfo, _ := os.Stat(lay.Graph())

	// Second run: everything up to date, nothing rewritten, same scores.
	rep2, err := Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	ran(t, rep2, all(false))
	if st, _ := os.Stat(lay.Graph()); !st.ModTime().Equal(segInfo.ModTime()) {
		t.Error("graph.txt rewritten by an up-to-date run")
	}
	if !reflect.DeepEqual(rep2.Sequences[0].Sparse, s.Sparse) || !reflect.DeepEqual(rep2.Sequences[0].Dense[DefaultVariant].Scores, s.Dense[DefaultVariant].Scores) {
		t.Error("skipped stages report other scores than the run that made them")
	}
	// Dense masks are also scored away from thin object parts, and the
	// report says so; the sparse scores are not.
	if d := s.Dense[DefaultVariant].Scores; d.JBenchmark == nil || s.Sparse.JBenchmark != nil {
		t.Errorf("DAVIS benchmark J: dense %v, sparse %v", d.JBenchmark, s.Sparse.JBenchmark)
	}
	// So are the two bounds, which are never below J.
	if d := s.Dense[DefaultVariant].Scores; d.JWithThinParts == nil || d.JWithoutHoles == nil || s.Sparse.JWithThinParts != nil || s.Sparse.JWithoutHoles != nil {
		t.Errorf("bounds: dense %v %v, sparse %v %v", d.JWithThinParts, d.JWithoutHoles, s.Sparse.JWithThinParts, s.Sparse.JWithoutHoles)
	} else if *d.JWithThinParts < d.JMean || *d.JWithoutHoles < d.JMean {
		t.Errorf("bounds %v, %v below J %v", *d.JWithThinParts, *d.JWithoutHoles, d.JMean)
	}
	if d := s.Dense[DefaultVariant].Scores; d.JAwayFromThin == nil || s.Sparse.JAwayFromThin != nil {
		t.Errorf("J away from thin parts: dense %v, sparse %v", d.JAwayFromThin, s.Sparse.JAwayFromThin)
	} else if md, _ := os.ReadFile(filepath.Join(work, "report.md")); !strings.Contains(string(md),
		fmt.Sprintf("Dense J (away from object parts thinner than 5 px, where the annotation draws 1-px lines): uniform %.2f (%.2f).", 100*d.JMean, 100**d.JAwayFromThin)) {
		t.Errorf("report.md lacks the J away from thin parts:\n%s", md)
	}
	if len(fd.trains) != 1 {
		t.Errorf("trained %d times, want 1", len(fd.trains))
	}

	// A segmentation stamped before camera.csv had upper quartiles (its
	// params were the bare options, its camera.csv medians only), or by an
	// earlier version of the solver, is redone, so that prepare does not
	// fall back to medians and the labels are the current search's. Here
	// the outputs it replaces are already the current ones, so the stages
	// after it find inputs with newer times and the same contents, and stay
	// up to date.
	stampPath := filepath.Join(lay.Dir, ".stamps", "segment.json")
	type segmentParams struct { // as the segment stage writes them
		Options         motiongraph.SegmentOptions `json:"options"`
		CameraResiduals int                        `json:"camera_residuals"`
		Solver          int                        `json:"solver"`
	}
	oldParams := []any{opt.Segment, segmentParams{opt.Segment, motiongraph.CameraResidualsVersion, multicut.SolverVersion - 1}}
	for i, old := range oldParams {
		raw, err := os.ReadFile(stampPath)
		if err != nil {
			t.Fatal(err)
		}
		var stamp Stamp
		if err := json.Unmarshal(raw, &stamp); err != nil {
			t.Fatal(err)
		}
		if stamp.Params, err = json.Marshal(old); err != nil {
			t.Fatal(err)
		}
		if raw, err = json.Marshal(stamp); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(stampPath, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		repOld, err := Run(ctx, filepath.Join(root, "tiny"), work, opt)
		if err != nil {
			t.Fatal(err)
		}
		wantOld := all(false)
		wantOld["segment"] = true
		t.Logf("old segment stamp %d", i)
		ran(t, repOld, wantOld)
		if st := stageMap(repOld)["prepare"]; !strings.Contains(st.Reason, "same contents") {
			t.Errorf("prepare after a segmentation redone alike: %q", st.Reason)
		}
		if r, err := motiongraph.ReadCameraResiduals(lay.CameraResiduals()); err != nil || r.Upper == nil {
			t.Errorf("camera.csv after the redone segmentation: upper quartiles %v, err %v", r.Upper != nil, err)
		}
	}

	// A changed segmentation parameter reruns segment and everything after
	// it, not the tracking.
	opt.Segment.Graph.Beta = 0.4
	rep3, err := Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := all(true)
	want["track"] = false
	// the fake densifier's masks come out the same (they fill the labels
	// in), so their scores stay up to date
	delete(want, "eval-dense-uniform")
	ran(t, rep3, want)

	// A newer input with the same contents (the tracks file copied again)
	// leaves every stage up to date; with other contents (one trajectory
	// fewer) everything reruns from the tracking on.
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(tracks, future, future); err != nil {
		t.Fatal(err)
	}
	rep4, err := Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	ran(t, rep4, all(false))
	if st := stageMap(rep4)["track"]; !strings.Contains(st.Reason, "same contents") {
		t.Errorf("track after a touched input: %q", st.Reason)
	}
	ts, err := trajectory.ReadTracks(tracks)
	if err != nil {
		t.Fatal(err)
	}
	ts.Tracks = ts.Tracks[:len(ts.Tracks)-1]
	if err := trajectory.WriteTracks(tracks, ts); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tracks, future, future); err != nil {
		t.Fatal(err)
	}
	rep4, err = Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	want = all(true)
	delete(want, "eval-dense-uniform")
	ran(t, rep4, want)

	// Force reruns everything.
	opt.Force = true
	rep5, err := Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	ran(t, rep5, all(true))
}

func TestRunResumesAfterFailure(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	var log bytes.Buffer
	fd := &fakeDensifier{failTrain: errors.New("killed")}
	opt := testOptions(tracks, fd, &log)
	_, err := Run(context.Background(), root, work, opt)
	if err == nil || !strings.Contains(err.Error(), "killed") || !strings.Contains(err.Error(), "1 of 1 sequences failed") {
		t.Fatalf("err = %v, want the training failure", err)
	}
	// the report names the failure
	md, rerr := os.ReadFile(filepath.Join(work, "report.md"))
	if rerr != nil || !strings.Contains(string(md), "**Failed:**") {
		t.Errorf("report does not show the failure: %v\n%s", rerr, md)
	}
	if _, err := os.Stat(stampPath(filepath.Join(work, "tiny"), "train-uniform")); err == nil {
		t.Error("failed stage left a stamp")
	}
	fd.failTrain = nil
	rep, err := Run(context.Background(), root, work, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := all(true)
	for _, s := range []string{"track", "segment", "uncertainty", "eval-sparse", "prepare"} {
		want[s] = false
	}
	ran(t, rep, want)
	// the killed training's folder is resumed, not thrown away
	if n := len(fd.trains); n != 2 || !fd.trains[1].Resume || fd.trains[0].Resume {
		t.Errorf("train requests: %+v, want a fresh start then a resume", fd.trains)
	}
}

func TestAblateSharesUpstream(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	var log bytes.Buffer
	fd := &fakeDensifier{}
	opt := testOptions(tracks, fd, &log)
	a, rep, err := Ablate(context.Background(), root, work, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(fd.trains) != 4 {
		t.Fatalf("%d train requests, want uniform, weighted, confidence and prune", len(fd.trains))
	}
	got := map[string]bool{}
	for _, tr := range fd.trains {
		got[tr.Variant] = true
		if tr.Sets[0] != fd.trains[0].Sets[0] || tr.Options != fd.trains[0].Options {
			t.Errorf("train requests differ beyond the variant: %+v", fd.trains)
		}
	}
	if len(got) != 4 || !got["uniform"] || !got["hard"] || !got["confidence"] || !got["prune"] {
		t.Errorf("trained variants %v", got)
	}
	n := 0
	for _, s := range rep.Sequences[0].Stages {
		if s.Stage == "prepare" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("prepare ran %d times, want 1", n)
	}
	if len(a.Rows) != 1 || a.Rows[0].Cells[VariantUniform].F.N != 1 || a.Rows[0].Cells[VariantWeighted].F.N != 1 {
		t.Fatalf("ablation rows %+v", a.Rows)
	}
	for _, f := range []string{"ablation.md", "ablation.csv"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestPrepareDataset(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	var log bytes.Buffer
	opt := testOptions(tracks, nil, &log)
	dirs, seqs, err := PrepareDataset(root, work, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 1 || len(seqs) != 1 || seqs[0].Name != "tiny" || dirs[0] != filepath.Join(work, "tiny", "prepared") {
		t.Fatalf("dirs %v seqs %+v", dirs, seqs)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "manifest.json")); err != nil {
		t.Fatal(err)
	}
	// without a densifier the dense stages fail with a clear message
	opt.Densifier = nil
	if _, err := Run(context.Background(), root, work, opt); err == nil || !strings.Contains(err.Error(), "no densifier") {
		t.Errorf("err = %v", err)
	}
}

func TestBadInput(t *testing.T) {
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("x"), 0o644)
	opt := DefaultOptions()
	opt.Log = &bytes.Buffer{}
	for _, c := range []struct {
		root, want string
		mod        func(*Options)
	}{
		{empty, "no sequences found", nil},
		{filepath.Join(empty, "missing"), "not a folder", nil},
	} {
		o := opt
		if c.mod != nil {
			c.mod(&o)
		}
		work := filepath.Join(t.TempDir(), "work")
		_, err := Run(context.Background(), c.root, work, o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.root, err, c.want)
		}
		if _, err := os.Stat(work); err == nil {
			t.Errorf("%s: bad input created the work folder", c.root)
		}
		if _, _, err := PrepareDataset(c.root, t.TempDir(), o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PrepareDataset %s: err = %v, want %q", c.root, err, c.want)
		}
	}
	root, _ := tinySequence(t)
	o := opt
	o.Sequences = []string{"nope"}
	if _, err := SelectSequences(root, o); err == nil || !strings.Contains(err.Error(), `no sequence "nope"`) {
		t.Errorf("err = %v", err)
	}
	o = opt
	o.Split = "Testset"
	if _, err := SelectSequences(root, o); err == nil || !strings.Contains(err.Error(), `no split "Testset"`) {
		t.Errorf("err = %v", err)
	}
}

func TestAblationTable(t *testing.T) {
	sc := func(f, j float64) *Scores { return &Scores{Precision: 0.9, Recall: 0.5, F: f, IoU: j, JMean: j} }
	vs := []Variant{VariantUniform, VariantWeighted}
	scores := map[string]map[Variant][]*Scores{
		// a: uniform F 0.60, 0.70 (mean 0.65, sd 0.0707); weighted 0.70, 0.80 (0.75, 0.0707): ΔF +0.10
		"a": {VariantUniform: {sc(0.6, 0.5), sc(0.7, 0.5)}, VariantWeighted: {sc(0.7, 0.6), sc(0.8, 0.6)}},
		// b: uniform 0.50, 0.50 (sd 0); weighted 0.48, 0.44 (0.46, sd 0.0283): ΔF −0.04;
		// J 0.40 → 0.45: ΔJ +0.05 (a: +0.10), spread 0: J rises on both, beyond the spread
		"b": {VariantUniform: {sc(0.5, 0.4), sc(0.5, 0.4)}, VariantWeighted: {sc(0.48, 0.45), sc(0.44, 0.45)}},
		// c: weighted missing: no comparison, uniform still in its mean
		"c": {VariantUniform: {sc(0.1, 0.1), nil}},
	}
	a := NewAblation(vs, []string{"a", "b", "c"}, scores)
	var md, csv bytes.Buffer
	if err := a.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := a.CSV(&csv); err != nil {
		t.Fatal(err)
	}
	// mean ΔF = (0.10 − 0.04)/2 = 0.03; spread = (0.0707 + 0.0141)/2 = 0.0424 > 0.03: not beyond
	wantMD := `| sequence | F (uniform) | F (weighted) | J (uniform) | J (weighted) |
|---|---:|---:|---:|---:|
| a | 65.00 ± 7.07 | 75.00 ± 7.07 | 50.00 ± 0.00 | 60.00 ± 0.00 |
| b | 50.00 ± 0.00 | 46.00 ± 2.83 | 40.00 ± 0.00 | 45.00 ± 0.00 |
| c | 10.00 | – | 10.00 | – |
| **mean** | 41.67 | 60.50 | 33.33 | 52.50 |

| variant vs uniform | mean ΔF | helps F on | seed spread of F | ΔF beyond the spread | mean ΔJ | helps J on | seed spread of J | ΔJ beyond the spread | default of run by the rule |
|---|---:|---:|---:|---|---:|---:|---:|---|---|
| weighted | +3.00 | 1 of 2 | 4.24 | no | +7.50 | 2 of 2 | 0.00 | yes | yes |

` + "The rule: a variant replaces uniform as the default of `densify run` when it raises J on at least 70 % of the sequences with a mean ΔJ beyond the seed spread.\n"
	if md.String() != wantMD {
		t.Errorf("markdown:\n%s\nwant:\n%s", md.String(), wantMD)
	}
	if n := strings.Count(csv.String(), "\n"); n != 1+9 {
		t.Errorf("csv has %d lines, want a header and 9 scored models:\n%s", n, csv.String())
	}
	if !strings.Contains(csv.String(), "b,weighted,2,0.900000,0.500000,0.440000,0.450000,0.450000,,\n") {
		t.Errorf("csv misses b's second weighted seed:\n%s", csv.String())
	}
	// with a larger gap the difference exceeds the spread
	scores["b"][VariantWeighted] = []*Scores{sc(0.6, 0.3), sc(0.64, 0.3)}
	c := NewAblation(vs, []string{"a", "b", "c"}, scores).Comparisons[0]
	if c.Helped != 2 || !c.Exceeds || math.Abs(c.MeanDelta-0.11) > 1e-12 {
		t.Errorf("comparison %+v, want 2 helped, mean ΔF (0.10 + 0.12)/2 = 0.11 beyond the spread", c)
	}
	// J falls on b (0.40 → 0.30): ΔJ +0.10, −0.10: mean 0, helps 1 of 2, not the default
	scores["b"][VariantWeighted] = []*Scores{sc(0.6, 0.3), sc(0.64, 0.3)}
	c = NewAblation(vs, []string{"a", "b", "c"}, scores).Comparisons[0]
	if c.HelpedJ != 1 || c.MeanDeltaJ != 0 || c.ExceedsJ || c.Default {
		t.Errorf("comparison %+v, want J helped on 1 of 2, mean ΔJ 0, not the default", c)
	}
}

// withBenchmark gives scores the DAVIS benchmark's J.
func withBenchmark(s *Scores, j float64) *Scores {
	s.JBenchmark = &j
	return s
}

// J away from thin parts and the DAVIS benchmark's J: a column per variant
// when some model has it, mean ± sd over the seeds that have it, and a mean
// over the sequences only when every sequence of the variant's J has it.
func TestAblationThinParts(t *testing.T) {
	sc := func(j float64, thin ...float64) *Scores {
		s := &Scores{F: j, JMean: j}
		if len(thin) > 0 {
			s.JAwayFromThin = &thin[0]
		}
		return s
	}
	vs := []Variant{VariantUniform, VariantWeighted}
	scores := map[string]map[Variant][]*Scores{
		// uniform: thin 0.70, 0.80 (mean 0.75, sd 0.0707); weighted: one seed has it
		"a": {VariantUniform: {sc(0.6, 0.7), withBenchmark(sc(0.7, 0.8), 0.72)}, VariantWeighted: {sc(0.5, 0.9), sc(0.5)}},
		// uniform 0.45; weighted: no seed has it
		"b": {VariantUniform: {sc(0.4, 0.45)}, VariantWeighted: {sc(0.3)}},
	}
	a := NewAblation(vs, []string{"a", "b"}, scores)
	var md, csv bytes.Buffer
	if err := a.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := a.CSV(&csv); err != nil {
		t.Fatal(err)
	}
	// uniform's mean: (0.75 + 0.45)/2 = 0.60 over both sequences; weighted
	// has it on a only, so its mean is not comparable with its J's: "–"
	testutil.Contains(t, "ablation", md.String(),
		"| sequence | F (uniform) | F (weighted) | J (uniform) | J (weighted) | J away from thin parts (uniform) | J away from thin parts (weighted) |",
		"| a | 65.00 ± 7.07 | 50.00 ± 0.00 | 65.00 ± 7.07 | 50.00 ± 0.00 | 75.00 ± 7.07 | 90.00 |",
		"| b | 40.00 | 30.00 | 40.00 | 30.00 | 45.00 | – |",
		"| **mean** | 52.50 | 40.00 | 52.50 | 40.00 | 60.00 | – |")
	if m := a.MeanJThin[VariantWeighted]; m.N != 1 || m.Mean != 0.9 {
		t.Errorf("weighted's mean J away from thin parts %+v, want 0.9 over 1 sequence", m)
	}
	// One model has the DAVIS benchmark's J: its column follows, uniform's
	// mean needs it on b too.
	testutil.Contains(t, "ablation", md.String(),
		"| J away from thin parts (weighted) | benchmark J (uniform) | benchmark J (weighted) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
		"| 75.00 ± 7.07 | 90.00 | 72.00 | – |\n", "| 45.00 | – | – | – |\n", "| 60.00 | – | – | – |\n")
	scores["b"][VariantUniform] = []*Scores{withBenchmark(sc(0.4, 0.45), 0.5)}
	var md2 bytes.Buffer
	if err := NewAblation(vs, []string{"a", "b"}, scores).Markdown(&md2); err != nil {
		t.Fatal(err)
	}
	// (0.72 + 0.50)/2 = 0.61
	testutil.Contains(t, "ablation with the benchmark's J on both", md2.String(), "| b | 40.00 | 30.00 | 40.00 | 30.00 | 45.00 | – | 50.00 | – |\n",
		"| **mean** | 52.50 | 40.00 | 52.50 | 40.00 | 60.00 | – | 61.00 | – |\n")
	// The CSV also carries the DAVIS benchmark's J where the scores have it.
	testutil.Contains(t, "csv", csv.String(), "sequence,variant,seed,precision,recall,f,iou,j_mean,j_away_thin,j_benchmark\n",
		"a,uniform,1,0.000000,0.000000,0.600000,0.000000,0.600000,0.700000,\n",
		"a,uniform,2,0.000000,0.000000,0.700000,0.000000,0.700000,0.800000,0.720000\n", "a,weighted,2,0.000000,0.000000,0.500000,0.000000,0.500000,,\n")
}

func TestReportMarkdown(t *testing.T) {
	falls := true
	r := &Report{Root: "data", Work: "out", Variants: []Variant{VariantWeighted}, Seconds: 12.5,
		Sequences: []*SequenceResult{
			{Name: "s1", Frames: 10, Trajectories: 300, Clusters: 3, TrackFrames: 10,
				Sparse:      &Scores{Precision: 0.9, Recall: 0.8, F: 0.847},
				Uncertainty: &UncertaintyInfo{Summary: uncertainty.Summary{Nodes: 300, MeanU: 0.01}, AUCVI: map[string]float64{"proposed": 0.1, "likelihood": 0.2, "random": 0.3}, VIFalls: &falls, Heatmaps: []string{"uncertainty/heatmaps/heat_00000.png"}},
				Dense: map[Variant]*DenseResult{VariantWeighted: {Masks: "masks-weighted", Preview: "preview-weighted.png",
					Scores: &Scores{Precision: 0.7, Recall: 0.6, F: 0.646, IoU: 0.45, JMean: 0.5}}},
				Stages: []StageStatus{{Stage: "track", Seconds: 2}, {Stage: "segment", Seconds: 0.5, Skipped: true}}},
			{Name: "s2", Trajectories: 100, Clusters: 2, Sparse: &Scores{Precision: 0.5, Recall: 0.4, F: 0.444},
				Dense: map[Variant]*DenseResult{VariantWeighted: {Masks: "masks-weighted", Scores: &Scores{Precision: 0.3, Recall: 0.2, F: 0.24, IoU: 0.05, JMean: 0.1}}},
				Error: "s2: predict-weighted: boom"},
		}}
	r.summarise()
	var b bytes.Buffer
	if err := r.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	testutil.Contains(t, "report", md,
		"| sequence | trajectories | clusters | sparse P | sparse R | sparse F | dense P (weighted) | dense R (weighted) | dense F (weighted) | J (weighted) | time (s) |",
		"| s1 | 300 | 3 | 90.00 | 80.00 | 84.70 | 70.00 | 60.00 | 64.60 | 50.00 | 2.5 |",
		"| s2 (failed) | 100 | 2 | 50.00 | 40.00 | 44.40 | 30.00 | 20.00 | 24.00 | 10.00 | 0.0 |",
		"| **mean** | | | 70.00 | 60.00 | 64.55 | 50.00 | 40.00 | 44.30 | 30.00 | |",
		"[sparsification curve (VI)](s1/uncertainty/sparsify/vi.png)",
		"[uncertainty heat map](s1/uncertainty/heatmaps/heat_00000.png)",
		"![weighted masks](s1/preview-weighted.png)",
		"(VI falls as uncertain trajectories go: true)",
		"**Failed:** s2: predict-weighted: boom",
		"| segment | 0.5 | skipped (up to date) |")
	if r.Sparse.Count != 2 || fmt.Sprintf("%.4f", r.Sparse.F) != "0.6455" {
		t.Errorf("sparse mean %+v", r.Sparse)
	}
	if strings.Contains(md, "Mean dense J (away") || r.Dense[VariantWeighted].JAwayFromThin != nil {
		t.Errorf("a mean J away from thin parts without any sequence having it:\n%s", md)
	}
	// Another J beside J, per sequence and as a mean, in report.md and the
	// terminal summary; the mean only when both sequences have it. Away from
	// thin parts: (0.60 + 0.20)/2 = 0.40 beside J's (0.50 + 0.10)/2 = 0.30;
	// the DAVIS 2016 benchmark's: (0.52 + 0.18)/2 = 0.35.
	for _, c := range []struct {
		line       jBeside
		of         func(*Scores) **float64
		a, b       float64
		perSeq     string
		mean       string
		meanOfMean func(*Mean) *float64
	}{
		{thinJ, func(s *Scores) **float64 { return &s.JAwayFromThin }, 0.6, 0.2,
			"Dense J (away from object parts thinner than 5 px, where the annotation draws 1-px lines): weighted 50.00 (60.00).",
			"Mean dense J (away from object parts thinner than 5 px): weighted 30.00 (40.00).", func(m *Mean) *float64 { return m.JAwayFromThin }},
		{benchmarkJ, func(s *Scores) **float64 { return &s.JBenchmark }, 0.52, 0.18,
			"Dense J (the DAVIS 2016 benchmark's, first and last frame left out): weighted 50.00 (52.00).",
			"Mean dense J (the DAVIS 2016 benchmark's, first and last frame left out): weighted 30.00 (35.00).", func(m *Mean) *float64 { return m.JBenchmark }},
		// The bounds: with the thin parts (0.55 + 0.15)/2 = 0.35, without
		// the holes (0.70 + 0.30)/2 = 0.50.
		{withThinJ, func(s *Scores) **float64 { return &s.JWithThinParts }, 0.55, 0.15,
			"Dense J (with every object part thinner than 5 px added to the masks: a bound): weighted 50.00 (55.00).",
			"Mean dense J (with every object part thinner than 5 px added to the masks: a bound): weighted 30.00 (35.00).", func(m *Mean) *float64 { return m.JWithThinParts }},
		{withoutHolesJ, func(s *Scores) **float64 { return &s.JWithoutHoles }, 0.7, 0.3,
			"Dense J (with the object's holes taken out of the masks: a bound): weighted 50.00 (70.00).",
			"Mean dense J (with the object's holes taken out of the masks: a bound): weighted 30.00 (50.00).", func(m *Mean) *float64 { return m.JWithoutHoles }},
	} {
		s0, s1 := r.Sequences[0].Dense[VariantWeighted].Scores, r.Sequences[1].Dense[VariantWeighted].Scores
		a, bb := c.a, c.b
		*c.of(s0), *c.of(s1) = &a, &bb
		r.summarise()
		b.Reset()
		if err := r.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		var sum bytes.Buffer
		r.WriteSummary(&sum)
		testutil.Contains(t, "report", b.String(), c.perSeq, c.mean)
		testutil.Contains(t, "summary", sum.String(), c.mean)
		*c.of(s1) = nil
		r.summarise()
		if m := r.Dense[VariantWeighted]; c.meanOfMean(m) != nil || c.line.meanLine(r.Dense, r.Variants) != "" {
			t.Errorf("%s given over 1 of 2 sequences: %+v", c.mean, m)
		}
		*c.of(s0) = nil
	}
	// Label quality away from thin parts: printed when the prepare stamp has
	// it, left out (not printed as 0) for a stamp written before it existed.
	// The frames whose object has no object label are named, and the line
	// is left out when there is none.
	away := trainset.LabelScores{IoU: 0.95}
	lost := []trainset.FrameLabels{{Frame: 0, ObjectPixels: 9, ObjectLabels: 2}, {Frame: 1, ObjectPixels: 9, BackgroundLabels: 3},
		{Frame: 2, ObjectPixels: 9}, {Frame: 3}, {Frame: 4, ObjectPixels: 9}}
	const lostLine = "In 3 of 5 annotated frames the object carries no object label (frames 1–2, 4)"
	for _, c := range []struct {
		away    *trainset.LabelScores
		byFrame []trainset.FrameLabels
		want    string
	}{{&away, lost, "IoU 0.800 over 100 labelled pixels (IoU 0.950 away from object parts thinner than 5 px); hard"},
		{nil, lost[:1], "IoU 0.800 over 100 labelled pixels; hard"}} {
		r.Sequences[0].Prepared = &PrepareInfo{LabelQuality: &trainset.LabelQuality{Labelled: trainset.LabelScores{Pixels: 100, IoU: 0.8}, AwayFromThin: c.away, ByFrame: c.byFrame}}
		var b bytes.Buffer
		if err := r.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("report lacks %q:\n%s", c.want, b.String())
		}
		if got, want := strings.Contains(b.String(), lostLine), len(c.byFrame) > 1; got != want {
			t.Errorf("report names the unlabelled frames: %v, want %v:\n%s", got, want, b.String())
		}
	}
	r.Sequences[0].Prepared = nil
	// oracle J 0.80 against the weighted J 0.50: labels cost 30 points, the
	// densifier 20, so the segmentation limits s1
	s1 := r.Sequences[0]
	s1.Dense[VariantOracle] = &DenseResult{Variant: VariantOracle, Scores: &Scores{JMean: 0.8}}
	want := "dense J 80.00 against 50.00 with the segmentation's labels (weighted): the labels cost 30.00 points, the densifier 20.00; the segmentation limits this sequence."
	if got := oracleLine(s1, []Variant{VariantWeighted, VariantOracle}); !strings.Contains(got, want) {
		t.Errorf("oracle line %q, want %q", got, want)
	}
	if got := oracleLine(r.Sequences[1], []Variant{VariantWeighted}); got != "" {
		t.Errorf("oracle line without oracle: %q", got)
	}
}

// A work folder inside the sequence folder must not make the frames look
// newer than the stamps (inputs are the frame files, not the folder).
func TestWorkInsideSequence(t *testing.T) {
	root, tracks := tinySequence(t)
	seq := filepath.Join(root, "tiny")
	work := filepath.Join(seq, "work")
	var log bytes.Buffer
	opt := testOptions(tracks, &fakeDensifier{}, &log)
	if _, err := Run(context.Background(), seq, work, opt); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), seq, work, opt)
	if err != nil {
		t.Fatal(err)
	}
	ran(t, rep, all(false))
}

// fakeTracker stands in for the OpenCV tracker: it returns the ground-truth
// trajectories of the synthetic sequence (labels cleared, as a tracker
// writes them) and records what it was asked.
type fakeTracker struct {
	ts     *trajectory.TrackSet
	frames int
	flow   string
	calls  int
}

func (f *fakeTracker) TrackSequence(frames []string, opt trajectory.TrackerOptions, flow string, progress func(done, total int)) (*trajectory.TrackSet, error) {
	f.frames, f.flow = len(frames), flow
	f.calls++
	for i := 1; i < len(frames); i++ {
		progress(i, len(frames)-1)
	}
	out := &trajectory.TrackSet{Frames: f.ts.Frames}
	for _, tr := range f.ts.Tracks {
		tr.Label = 0
		out.Tracks = append(out.Tracks, tr)
	}
	return out, nil
}

// trackerRun returns the tiny sequence's root, a fakeTracker of its
// ground-truth trajectories and test options that log into log.
func trackerRun(t *testing.T, log *bytes.Buffer) (string, *fakeTracker, Options) {
	root, tracks := tinySequence(t)
	gt, err := trajectory.ReadTracks(tracks)
	if err != nil {
		t.Fatal(err)
	}
	return root, &fakeTracker{ts: gt}, testOptions("", &fakeDensifier{}, log)
}

// The tracking stage runs the injected tracker on the sequence's frames with
// the configured flow method; without a tracker (and no Tracks file) it fails
// with a clear message.
func TestTrackStageUsesInjectedTracker(t *testing.T) {
	var log bytes.Buffer
	root, ft, opt := trackerRun(t, &log)
	gt := ft.ts
	opt.Flow = "farneback"
	opt.FlowTracker = ft
	work := t.TempDir()
	rep, err := Run(context.Background(), root, work, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if ft.frames != 8 || ft.flow != "farneback" {
		t.Errorf("tracker got %d frames, flow %q; want 8, farneback", ft.frames, ft.flow)
	}
	if s := rep.Sequences[0]; s.Trajectories != len(gt.Tracks) || s.Sparse == nil || s.Sparse.F < 0.6 {
		t.Errorf("sequence result %+v (sparse %+v), want %d trajectories and F ≥ 0.6", s, s.Sparse, len(gt.Tracks))
	}
	opt.FlowTracker = nil
	if _, err := Run(context.Background(), root, t.TempDir(), opt); err == nil || !strings.Contains(err.Error(), "no tracker") {
		t.Errorf("err = %v, want no tracker", err)
	}
}

// describedTracker is a fakeTracker that describes its flow's parameters
// (trajectory.FlowDescriber), as video.Tracker does.
type describedTracker struct {
	*fakeTracker
	params string
}

func (d describedTracker) FlowParams(flow string) string { return flow + " " + d.params }

// The flow's parameters are part of the tracking stage's stamp: a second run
// with the same ones keeps the tracks, a run after they changed (a new
// default of the flow) tracks again, and so does a run over a work folder
// stamped by a tracker that did not describe them.
func TestTrackStageRedoneWhenFlowParamsChange(t *testing.T) {
	var log bytes.Buffer
	root, ft, opt := trackerRun(t, &log)
	work := t.TempDir()
	for i, step := range []struct {
		tracker   trajectory.SequenceTracker
		wantCalls int
	}{
		{ft, 1},                                        // no description
		{describedTracker{ft, "scale 1"}, 2},           // a description where the stamp had none
		{describedTracker{ft, "scale 1"}, 2},           // the same: kept
		{describedTracker{ft, "scale 0, patch 12"}, 3}, // changed: tracked again
	} {
		opt.FlowTracker = step.tracker
		if _, err := Run(context.Background(), root, work, opt); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, log.String())
		}
		if ft.calls != step.wantCalls {
			t.Errorf("run %d: tracker called %d times in all, want %d", i, ft.calls, step.wantCalls)
		}
	}
}

// Geometry is checked before any work: tracks of another sequence (points
// outside the frames) fail the track stage, ground truth of another size
// fails before any stage; nothing is trained in either case.
func TestGeometryCheckedBeforeWork(t *testing.T) {
	root, tracks := tinySequence(t)
	ts, err := trajectory.ReadTracks(tracks)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ts.Tracks {
		for k := range ts.Tracks[i].Points {
			ts.Tracks[i].Points[k].X += 200 // another sequence's (wider) tracks
		}
	}
	far := filepath.Join(t.TempDir(), "farTracks8.dat")
	if err := trajectory.WriteTracks(far, ts); err != nil {
		t.Fatal(err)
	}
	fake := &fakeDensifier{}
	var log bytes.Buffer
	_, err = Run(context.Background(), root, filepath.Join(t.TempDir(), "work"), testOptions(far, fake, &log))
	if err == nil || !strings.Contains(err.Error(), far+": track 0, frame ") || !strings.Contains(err.Error(), "lies outside the 96x72 frames") {
		t.Errorf("tracks outside: %v", err)
	}
	// Ground truth of another size: every label image replaced by a 10x10 one.
	gts, _ := filepath.Glob(filepath.Join(root, "*", "*", "*.p[pg]m"))
	gts2, _ := filepath.Glob(filepath.Join(root, "*", "*.p[pg]m"))
	if gts = append(gts, gts2...); len(gts) == 0 {
		t.Fatal("no label images found")
	}
	for _, p := range gts {
		data := append([]byte("P6\n10 10\n255\n"), make([]byte, 300)...)
		if strings.HasSuffix(p, ".pgm") {
			data = append([]byte("P5\n10 10\n255\n"), make([]byte, 100)...)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	work := filepath.Join(t.TempDir(), "work")
	_, err = Run(context.Background(), root, work, testOptions(tracks, fake, &log))
	if err == nil || !strings.Contains(err.Error(), "is 10x10 but the frames in") || !strings.Contains(err.Error(), "are 96x72") {
		t.Errorf("ground truth of another size: %v", err)
	}
	if len(fake.trains) != 0 {
		t.Errorf("%d trainings despite bad geometry", len(fake.trains))
	}
	if _, err := os.Stat(filepath.Join(work, "tiny", "tracks.dat")); err == nil {
		t.Error("a stage ran despite ground truth of another size")
	}
}

func TestVariantNamesAndSweepParameters(t *testing.T) {
	for _, c := range []struct {
		factor, phi float64
		name        string
	}{{10, 0.005, "weighted-f10-phi0.005"}, {0, 0.02, "weighted-phi0.02"}, {1000, -1, "weighted-f1000"}, {0, -1, "weighted"}} {
		v := WeightedWith(c.factor, c.phi)
		if string(v) != c.name {
			t.Errorf("WeightedWith(%v, %v) = %s, want %s", c.factor, c.phi, v, c.name)
		}
		p, err := ParseVariant(c.name)
		f, phi, ok := p.HardParams()
		if err != nil || !ok || f != c.factor || phi != c.phi || p.TrainVariant() != "hard" {
			t.Errorf("%s: parsed %v (%v) → factor %v φ %v ok %v", c.name, p, err, f, phi, ok)
		}
	}
	for _, bad := range []string{"weighted-f0", "weighted-phi2", "weighted-fx", "uniform-f10", "hard"} {
		if _, err := ParseVariant(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if VariantConfidence.TrainVariant() != "confidence" || VariantOracle.TrainVariant() != "uniform" ||
		VariantPrune.TrainVariant() != "prune" || VariantHardRight.TrainVariant() != "hard-right" {
		t.Error("train variants of confidence / oracle / prune / hard-right")
	}
	// an ablation with a swept variant hands its factor and φ to the densifier
	root, tracks := tinySequence(t)
	fd := &fakeDensifier{}
	var log bytes.Buffer
	opt := testOptions(tracks, fd, &log)
	opt.Seeds = 2
	a, _, err := Ablate(context.Background(), root, t.TempDir(), opt, WeightedWith(10, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	// uniform is added; two seeds each: 4 trainings
	if len(fd.trains) != 4 || len(a.Variants) != 2 || a.Variants[0] != VariantUniform {
		t.Fatalf("%d trainings, variants %v", len(fd.trains), a.Variants)
	}
	seeds := map[int64]int{}
	for _, tr := range fd.trains {
		seeds[tr.Options.Seed]++
		if tr.Variant == "hard" && (tr.Factor != 10 || tr.Phi == nil || *tr.Phi != 0.5) {
			t.Errorf("swept variant trained with factor %v φ %v", tr.Factor, tr.Phi)
		}
		if tr.Variant == "uniform" && (tr.Factor != 0 || tr.Phi != nil) {
			t.Errorf("uniform trained with factor %v φ %v", tr.Factor, tr.Phi)
		}
	}
	if seeds[1] != 2 || seeds[2] != 2 {
		t.Errorf("seeds of the trainings %v, want 1 and 2 twice each", seeds)
	}
	if c := a.Rows[0].Cells[VariantUniform]; c.F.N != 2 {
		t.Errorf("uniform cell has %d scored seeds, want 2", c.F.N)
	}
}

func TestReportColourCheckAndBackgroundCutLines(t *testing.T) {
	for _, n := range []int{17, 0} {
		r := &Report{Root: "data", Work: "out", Sequences: []*SequenceResult{{Name: "s1",
			Prepared: &PrepareInfo{Summary: trainset.Summary{Frames: 2, Width: 4, Height: 3, Classes: 2, ClassCounts: []int{5, 1}, Unsupported: 3, ColourRejected: n, ColourRejectedTracks: n / 4, CutPoints: 2 * n}}}}}
		r.summarise()
		var b bytes.Buffer
		if err := r.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		md := b.String()
		testutil.Contains(t, "report", md, "3 foreground points of short trajectories dropped (no long trajectory of their segment nearby).")
		if has := strings.Contains(md, "The colour check dropped 17 more, of 4 trajectories whose colours are, on the whole, the background's."); has != (n == 17) {
			t.Errorf("%d points dropped for their colour: line present %v\n%s", n, has, md)
		}
		if n == 0 && strings.Contains(md, "colour check") {
			t.Errorf("a colour-check line without the check:\n%s", md)
		}
		if has := strings.Contains(md, "The background cut (a graph cut with the labels as hard constraints) added 34 background points near the object, where no trajectory is."); has != (n == 17) {
			t.Errorf("%d background-cut points: line present %v\n%s", 2*n, has, md)
		}
		if n == 0 && strings.Contains(md, "background cut") {
			t.Errorf("a background-cut line without points:\n%s", md)
		}
	}
}

// keepingTracker is a describedTracker that also hands every pair's flows
// to keep (trajectory.FlowKeeper), as video.Tracker does: fields whose
// every sample is the pair's index (forward) or its negative (backward).
type keepingTracker struct {
	describedTracker
	w, h int
}

func (k keepingTracker) TrackSequenceKeeping(frames []string, opt trajectory.TrackerOptions, flow string, keep func(t int, fwd, bwd *trajectory.FlowField) error, progress func(done, total int)) (*trajectory.TrackSet, error) {
	for t := 0; t+1 < len(frames); t++ {
		fwd, bwd := trajectory.NewFlowField(k.w, k.h), trajectory.NewFlowField(k.w, k.h)
		for i := range fwd.U {
			fwd.U[i], bwd.U[i] = float32(t), -float32(t)
		}
		if err := keep(t, fwd, bwd); err != nil {
			return nil, err
		}
	}
	return k.TrackSequence(frames, opt, flow, progress)
}

// flowReader is a fakeDensifier whose Predict also opens the flow store it
// is handed, as the U-Net's temporal fusion does, and reads pair 2→3.
type flowReader struct {
	*fakeDensifier
	tracker *fakeTracker
	desc    string
	got     []float32
	err     error
}

func (r *flowReader) Predict(ctx context.Context, req PredictRequest) error {
	m, err := trajectory.NewFlowManifest(req.Frames, r.desc, 96, 72)
	if err == nil {
		var s *trajectory.FlowStore
		if s, err = trajectory.OpenFlowStore(req.Flows, m); err == nil {
			var f *trajectory.FlowField
			if f, err = s.Get(3, 2); err == nil {
				r.got = f.U[:3]
			}
		}
	}
	r.err = err
	return r.fakeDensifier.Predict(ctx, req)
}

// runKeepingFlows runs the uniform variant on the tiny sequence in work
// with a keepingTracker whose fields are w px wide (the frames: 96) and a
// flowReader densifier, and returns the report, the reader and the log.
func runKeepingFlows(t *testing.T, work string, w int) (*Report, *flowReader, *bytes.Buffer) {
	t.Helper()
	log := &bytes.Buffer{}
	root, ft, opt := trackerRun(t, log)
	kt := keepingTracker{describedTracker{ft, "scale 0"}, w, 72}
	opt.FlowTracker = kt
	r := &flowReader{fakeDensifier: &fakeDensifier{}, desc: trajectory.DescribeFlow(opt.Flow, kt.FlowParams(opt.Flow)), tracker: ft}
	opt.Densifier = r
	rep, err := Run(context.Background(), root, work, opt, VariantUniform)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return rep, r, log
}

// A tracker that keeps its flows writes them into the sequence's flows
// folder, made for its flow and the sequence's frames; predict is handed
// that folder and reads the tracker's fields from it; the folder is
// removed once the sequence is done.
func TestTrackerFlowsReachPredict(t *testing.T) {
	work := t.TempDir()
	_, r, _ := runKeepingFlows(t, work, 96)
	if r.err != nil {
		t.Fatalf("predict could not read the tracker's flows: %v", r.err)
	}
	if want := []float32{-2, -2, -2}; fmt.Sprint(r.got) != fmt.Sprint(want) {
		t.Errorf("F_{3→2} starts %v, want %v (pair 2's backward field)", r.got, want)
	}
	if dirs, _ := filepath.Glob(filepath.Join(work, "*", "flows")); len(dirs) != 0 {
		t.Errorf("flows left after the run: %v", dirs)
	}
}

// Flows that cannot be kept (here fields of another size than the frames)
// do not stop the tracking: the run says so once, keeps no flows folder
// and predicts as without them.
func TestFlowsNotKeptDoNotStopTheRun(t *testing.T) {
	rep, r, log := runKeepingFlows(t, t.TempDir(), 95)
	ft := r.tracker
	if n := strings.Count(log.String(), "the tracker's flows are not kept"); n != 1 {
		t.Errorf("said %d times that the flows are not kept, want once:\n%s", n, log.String())
	}
	if r.err == nil || len(r.fakeDensifier.predicts) != 1 {
		t.Errorf("predict read a store (%v) or was not called (%d)", r.err, len(r.fakeDensifier.predicts))
	}
	if s := rep.Sequences[0]; s.Trajectories != len(ft.ts.Tracks) {
		t.Errorf("%d trajectories, want %d", s.Trajectories, len(ft.ts.Tracks))
	}
}

// Per-sequence cost models (leave-one-sequence-out): the sequence is
// segmented with its own model, exactly as with that model for the whole
// run, segment.json names it, a changed model redoes the segmentation,
// and a sequence without a model stops the run before any work.
func TestCostModelsPerSequence(t *testing.T) {
	root, tracks := tinySequence(t)
	seq := filepath.Join(root, "tiny")
	var log bytes.Buffer
	synthetic, _ := motiongraph.NamedCostModel("synthetic")
	davis, _ := motiongraph.NamedCostModel("davis")
	graph := func(work string) []byte {
		b, err := os.ReadFile(Layout{Dir: filepath.Join(work, "tiny"), Name: "tiny"}.Graph())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	whole := t.TempDir()
	opt := testOptions(tracks, &fakeDensifier{}, &log)
	opt.Segment.Model = synthetic
	if _, err := Run(context.Background(), seq, whole, opt); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}

	work := t.TempDir()
	opt = testOptions(tracks, &fakeDensifier{}, &log)
	opt.Segment.Model = nil
	opt.CostModels, opt.CostModelSource = map[string]*motiongraph.CostModel{"tiny": synthetic, "other": davis}, "folds"
	if _, err := Run(context.Background(), seq, work, opt); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !bytes.Equal(graph(work), graph(whole)) {
		t.Error("the sequence's own model gives another graph than the same model for the whole run")
	}
	var info struct{ Model string }
	if b, err := os.ReadFile(Layout{Dir: filepath.Join(work, "tiny"), Name: "tiny"}.SegmentJSON()); err != nil || json.Unmarshal(b, &info) != nil {
		t.Fatalf("segment.json: %v", err)
	}
	if want := filepath.Join("folds", "tiny.json"); info.Model != want {
		t.Errorf("segment.json model = %q, want %q", info.Model, want)
	}

	opt.CostModels["tiny"] = davis
	rep, err := Run(context.Background(), seq, work, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	ran(t, rep, map[string]bool{"track": false, "segment": true})
	if bytes.Equal(graph(work), graph(whole)) {
		t.Error("another model for the sequence left its graph as it was")
	}

	opt.CostModels = map[string]*motiongraph.CostModel{"other": davis}
	fresh := filepath.Join(t.TempDir(), "work")
	if _, err := Run(context.Background(), seq, fresh, opt); err == nil || !strings.Contains(err.Error(), "tiny: no cost model") {
		t.Errorf("a sequence without a model: err = %v", err)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("a sequence without a model created the work folder")
	}
}

// --primary-object auto: on for the sequences of a DAVIS 2016 root (one
// annotated object each), off for an FBMS-layout folder; false turns it off
// on DAVIS too. The prepare stage records the decision, and a change of it
// prepares again.
func TestPrimaryObjectAutoFollowsTheDataset(t *testing.T) {
	root, tracks := tinySequence(t)
	davis := t.TempDir()
	if err := os.MkdirAll(filepath.Join(davis, "JPEGImages", "480p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "tiny"), filepath.Join(davis, "JPEGImages", "480p", "tiny")); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	work := t.TempDir()
	for _, c := range []struct {
		root     string
		auto, on bool
		want     bool
		prepares bool
	}{
		{root, true, false, false, true},
		{davis, true, false, true, true},
		{davis, true, false, true, false},
		{davis, false, false, false, true},
		{davis, false, true, true, true},
	} {
		opt := testOptions(tracks, &fakeDensifier{}, &log)
		opt.PrimaryObjectAuto, opt.Prepare.PrimaryObject = c.auto, c.on
		rep, err := Run(context.Background(), c.root, work, opt)
		if err != nil {
			t.Fatalf("%v\n%s", err, log.String())
		}
		if got := rep.Sequences[0].Prepared; got == nil || got.PrimaryObject != c.want {
			t.Errorf("%s, auto %v, on %v: prepared %+v, want primary object %v", c.root, c.auto, c.on, got, c.want)
		}
		ran(t, rep, map[string]bool{"prepare": c.prepares})
	}
}
