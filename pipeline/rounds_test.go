package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two self-training rounds after the first training: each round trains
// from the round before's checkpoint on the set plus the round before's
// masks, whose prediction wrote the probability maps the round reads; the
// result holds every round, and the last round's masks are the result's.
// The first training has the CRF loss weight of CRFWeight, the rounds that
// of RoundCRFWeight. Run again, nothing reruns; another λ or another
// weight of the rounds' CRF loss redoes the rounds but not the first
// training.
func TestSelfTrainingRounds(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	var log bytes.Buffer
	fd := &fakeDensifier{}
	opt := testOptions(tracks, fd, &log)
	opt.Train.Rounds = 2
	opt.Train.CRFWeight, opt.Train.RoundCRFWeight = 1, 4
	ctx := context.Background()
	rep, err := Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	want := all(true)
	for _, s := range []string{"train-uniform-round1", "predict-uniform-round1", "eval-dense-uniform-round1",
		"train-uniform-round2", "predict-uniform-round2", "eval-dense-uniform-round2"} {
		want[s] = true
	}
	ran(t, rep, want)
	lay := Layout{Dir: filepath.Join(work, "tiny"), Name: "tiny"}
	if len(fd.trains) != 3 || len(fd.predicts) != 3 {
		t.Fatalf("%d trainings and %d predictions, want 3 and 3", len(fd.trains), len(fd.predicts))
	}
	if tr := fd.trains[0]; len(tr.Pseudo) != 0 || tr.Init != "" {
		t.Errorf("the first training got self-training labels %v from %q", tr.Pseudo, tr.Init)
	}
	for i, tr := range fd.trains {
		if want := map[bool]float64{true: 1, false: 4}[i == 0]; tr.Options.CRFWeight != want {
			t.Errorf("training %d has CRF loss weight %v, want %v", i, tr.Options.CRFWeight, want)
		}
	}
	for r, prev := range []string{"uniform", "uniform-round1"} {
		tr := fd.trains[r+1]
		if len(tr.Pseudo) != 1 || tr.Pseudo[0] != lay.Masks(prev) {
			t.Errorf("round %d reads labels %v, want [%s]", r+1, tr.Pseudo, lay.Masks(prev))
		}
		if wantCk := filepath.Join(lay.Model(prev), "model.json"); tr.Init != wantCk {
			t.Errorf("round %d starts from %q, want %q", r+1, tr.Init, wantCk)
		}
		if tr.Out != lay.Model("uniform-round"+string(rune('1'+r))) {
			t.Errorf("round %d trains into %s", r+1, tr.Out)
		}
	}
	for i, p := range fd.predicts {
		if wantProb := i < 2; p.Options.ProbMaps != wantProb {
			t.Errorf("prediction %d writes probability maps: %v, want %v", i, p.Options.ProbMaps, wantProb)
		}
	}
	d := rep.Sequences[0].Dense[DefaultVariant]
	if len(d.Rounds) != 3 {
		t.Fatalf("%d rounds recorded, want 3: %+v", len(d.Rounds), d.Rounds)
	}
	for r, rr := range d.Rounds {
		if rr.Round != r || rr.Scores == nil {
			t.Errorf("round %d recorded as %+v", r, rr)
		}
	}
	if d.Masks != "masks-uniform-round2" || d.Scores.JMean != d.Rounds[2].Scores.JMean || d.Scores.F != d.Rounds[2].Scores.F || d.Preview != "preview-uniform-round2.png" {
		t.Errorf("result masks %s, preview %s, scores %+v: want the last round's (%+v)", d.Masks, d.Preview, *d.Scores, *d.Rounds[2].Scores)
	}

	var md strings.Builder
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if line := fmt.Sprintf("Self-training rounds, uniform: round 0 J %s (", pct(d.Rounds[0].Scores.JMean)); !strings.Contains(md.String(), line) ||
		!strings.Contains(md.String(), fmt.Sprintf(") → round 2 J %s (", pct(d.Rounds[2].Scores.JMean))) {
		t.Errorf("the report does not give J per round:\n%s", md.String())
	}

	rep, err = Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	for s := range want {
		want[s] = false
	}
	ran(t, rep, want)

	opt.Train.PseudoWeight = 2
	rep, err = Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	// the rounds' models and so their predictions are redone; the fake's
	// masks come out the same, so their scores stay
	for _, s := range []string{"train-uniform-round1", "predict-uniform-round1", "train-uniform-round2", "predict-uniform-round2"} {
		want[s] = true
	}
	ran(t, rep, want)
	if n := len(fd.trains); n != 5 || fd.trains[3].Options.PseudoWeight != 2 {
		t.Errorf("%d trainings, the fourth with λ = %v: want 5 and 2", n, fd.trains[len(fd.trains)-1].Options.PseudoWeight)
	}

	opt.Train.RoundCRFWeight = 2
	rep, err = Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	// the rounds train again; the fake's models come out the same, so
	// their predictions are up to date
	want["predict-uniform-round1"], want["predict-uniform-round2"] = false, false
	ran(t, rep, want)
	if n := len(fd.trains); n != 7 || fd.trains[5].Options.CRFWeight != 2 || fd.trains[6].Options.CRFWeight != 2 {
		t.Errorf("%d trainings, the last two with CRF loss weight %v and %v: want 7, 2 and 2", n, fd.trains[n-2].Options.CRFWeight, fd.trains[n-1].Options.CRFWeight)
	}
}

// TrainOptions.Init: the first training starts from that checkpoint, the
// round from the first training's model. Run again, nothing reruns; the
// checkpoint's contents changed, the first training runs again.
func TestFirstTrainingStartsFromInit(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	prior := filepath.Join(t.TempDir(), "prior.ckpt")
	if err := os.WriteFile(prior, []byte("weights of another video"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	fd := &fakeDensifier{}
	opt := testOptions(tracks, fd, &log)
	opt.Train.Rounds, opt.Train.Init = 1, prior
	ctx := context.Background()
	if _, err := Run(ctx, filepath.Join(root, "tiny"), work, opt); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	lay := Layout{Dir: filepath.Join(work, "tiny"), Name: "tiny"}
	if len(fd.trains) != 2 {
		t.Fatalf("%d trainings, want 2", len(fd.trains))
	}
	if tr := fd.trains[0]; tr.Init != prior || len(tr.Pseudo) != 0 {
		t.Errorf("the first training starts from %q with self-training labels %v, want %q and none", tr.Init, tr.Pseudo, prior)
	}
	if tr, want := fd.trains[1], filepath.Join(lay.Model("uniform"), "model.json"); tr.Init != want {
		t.Errorf("the round starts from %q, want %q", tr.Init, want)
	}

	rep, err := Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := all(false)
	want["train-uniform-round1"] = false
	ran(t, rep, want)
	if err := os.WriteFile(prior, []byte("weights of a third video"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err = Run(ctx, filepath.Join(root, "tiny"), work, opt); err != nil {
		t.Fatal(err)
	}
	// the fake's model comes out the same, so what reads it is up to date
	want["train-uniform"] = true
	ran(t, rep, want)
	if len(fd.trains) != 3 || fd.trains[2].Init != prior {
		t.Errorf("after the checkpoint changed: %d trainings, want 3, the third from %q", len(fd.trains), prior)
	}
}

// Starting weights held in memory are written to WORK/starting-weights and
// the first training starts from that file; a second run leaves the file
// as it is (nothing retrains), and other weights retrain.
func TestStartingWeightsAreWrittenToTheWorkFolder(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	var log bytes.Buffer
	fd := &fakeDensifier{}
	opt := testOptions(tracks, fd, &log)
	opt.Train.Rounds = 0
	opt.StartingWeights = &StartingWeights{Name: "unet-cpu-other", Data: []byte("weights of other videos")}
	ctx := context.Background()
	if _, err := Run(ctx, filepath.Join(root, "tiny"), work, opt); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	path := filepath.Join(work, StartingWeightsDir, "unet-cpu-other.ckpt")
	if b, err := os.ReadFile(path); err != nil || string(b) != "weights of other videos" {
		t.Fatalf("%s: %q, %v", path, b, err)
	}
	if len(fd.trains) != 1 || fd.trains[0].Init != path {
		t.Fatalf("trainings %+v, want one from %s", fd.trains, path)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	old := st.ModTime().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, filepath.Join(root, "tiny"), work, opt)
	if err != nil {
		t.Fatal(err)
	}
	ran(t, rep, all(false))
	if st, err := os.Stat(path); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("the same weights rewrote %s (%v)", path, err)
	}
	opt.StartingWeights.Data = []byte("weights of yet other videos")
	if rep, err = Run(ctx, filepath.Join(root, "tiny"), work, opt); err != nil {
		t.Fatal(err)
	}
	if len(fd.trains) != 2 || fd.trains[1].Init != path {
		t.Errorf("after other weights: %d trainings, want 2", len(fd.trains))
	}
}
