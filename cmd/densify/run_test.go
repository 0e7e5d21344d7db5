package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/models"
	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch"
)

// blankDensifier stands in for the U-Net: its masks are all background.
type blankDensifier struct{ trains []pipeline.TrainRequest }

func (*blankDensifier) Name() string { return "blank" }

func (d *blankDensifier) Train(_ context.Context, req pipeline.TrainRequest) (*pipeline.TrainResult, error) {
	d.trains = append(d.trains, req)
	ck := filepath.Join(req.Out, "model.ckpt")
	return &pipeline.TrainResult{Checkpoint: ck, Epochs: 1}, atomicfile.WriteBytes(ck, []byte("blank\n"))
}

func (*blankDensifier) Predict(_ context.Context, req pipeline.PredictRequest) error {
	for i := range req.Frames {
		if err := atomicfile.WritePNG(filepath.Join(req.Out, fmt.Sprintf("%05d.png", i)), image.NewGray(image.Rect(0, 0, 96, 72))); err != nil {
			return err
		}
	}
	return nil
}

// blankRun makes a synthetic sequence of 6 frames (96×72, ground truth
// every third frame, its Tracks file beside it) in a temporary folder dir
// and returns a factory whose densifier is d.
func blankRun(t *testing.T) (d *blankDensifier, f *Factory, dir, seq string) {
	t.Helper()
	dir = t.TempDir()
	d = &blankDensifier{}
	f = &Factory{Densifier: d}
	if _, _, err := execute(t, f, "synth", "--out", dir, "--tracks", "--frames", "6", "--width", "96", "--height", "72", "--gt-every", "3"); err != nil {
		t.Fatal(err)
	}
	return d, f, dir, filepath.Join(dir, "synth01")
}

// densify run in-process with the factory's densifier: the summary table on
// Out, stage lines on ErrOut, the uniform variant handed to the densifier.
func TestRunCommandInProcess(t *testing.T) {
	d, f, dir, seq := blankRun(t)
	out, errOut, err := execute(t, f, "run", seq, "--out", filepath.Join(dir, "work"), "--tracks",
		filepath.Join(seq, "synth01Tracks6_gt.dat"), "--min-segment", "0", "--uniform")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.HasPrefix(out, "sequence ") || !strings.Contains(out, "| uniform") || !strings.Contains(out, "report: ") {
		t.Errorf("summary:\n%s", out)
	}
	if !strings.Contains(errOut, "synth01: train-uniform running") || strings.Contains(errOut, "\r") {
		t.Errorf("stage log:\n%q", errOut)
	}
	// one training, from the embedded starting weights written to the
	// work folder, and no self-training round
	weights := filepath.Join(dir, "work", "starting-weights", "unet-cpu-davis.ckpt")
	if len(d.trains) != 1 || d.trains[0].Variant != "uniform" || len(d.trains[0].Pseudo) != 0 || d.trains[0].Init != weights {
		t.Errorf("train requests %+v", d.trains)
	}
	want, err := models.StartingWeights("unet-cpu", "davis")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(weights); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes (%v), want the %d embedded", weights, len(got), err, len(want))
	}
	if _, err := os.Stat(filepath.Join(dir, "work", "report.md")); err != nil {
		t.Error(err)
	}

	// --init none: a random initialisation, then the default self-training
	// round on the first training's masks
	d.trains = nil
	if _, errOut, err := execute(t, f, "run", seq, "--out", filepath.Join(dir, "work-none"), "--tracks",
		filepath.Join(seq, "synth01Tracks6_gt.dat"), "--min-segment", "0", "--uniform", "--init", "none"); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if len(d.trains) != 2 || d.trains[0].Init != "" || len(d.trains[0].Pseudo) != 0 ||
		len(d.trains[1].Pseudo) != 1 || d.trains[1].Pseudo[0] != filepath.Join(dir, "work-none", "synth01", "masks-uniform") {
		t.Errorf("--init none: train requests %+v", d.trains)
	}
	if _, err := os.Stat(filepath.Join(dir, "work-none", "starting-weights")); !os.IsNotExist(err) {
		t.Errorf("--init none wrote starting weights (%v)", err)
	}
}

func TestSweepVariants(t *testing.T) {
	got, err := sweepVariants(pipeline.DefaultAblationVariants, []float64{10, 100}, []float64{0.01})
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.Variant{"uniform", "weighted", "confidence", "prune", "weighted-f10-phi0.01", "weighted-f100-phi0.01"}
	if !slices.Equal(got, want) {
		t.Errorf("variants %v, want %v", got, want)
	}
	if got, _ := sweepVariants(nil, nil, []float64{0.02}); !slices.Equal(got, []pipeline.Variant{"weighted-phi0.02"}) {
		t.Errorf("φ sweep alone: %v", got)
	}
	if _, err := sweepVariants(nil, []float64{0}, nil); err == nil {
		t.Error("factor 0 accepted")
	}
	if _, err := sweepVariants(nil, nil, []float64{1.5}); err == nil {
		t.Error("φ 1.5 accepted")
	}
}

// densify run --init: the first training starts from the checkpoint (as an
// absolute path), the round from the first model. A file that is not a
// checkpoint, or a checkpoint of another preset than --preset, stops the
// run before any stage, naming the file.
func TestRunInitStartsTheFirstTraining(t *testing.T) {
	d, f, dir, seq := blankRun(t)
	cfg, err := unet.Preset("unet-cpu")
	if err != nil {
		t.Fatal(err)
	}
	m, err := unet.New(cfg, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	prior := filepath.Join(dir, "prior.ckpt")
	if err := m.Save(prior, nil); err != nil {
		t.Fatal(err)
	}
	notCkpt := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notCkpt, []byte("not a checkpoint\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tracks := filepath.Join(seq, "synth01Tracks6_gt.dat")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"not a checkpoint", []string{"--init", notCkpt}, notCkpt},
		{"another preset", []string{"--init", prior, "--preset", "unet-paper"}, "preset unet-cpu, but the sequences train preset unet-paper"},
		{"unknown name", []string{"--init", "imagenet"}, "imagenet: no such file or directory (and not auto, none or the name of starting weights embedded for unet-cpu: davis)"},
		{"a name of another preset", []string{"--init", "davis", "--preset", "unet-paper"}, "embedded for unet-paper: none"},
	} {
		work := filepath.Join(dir, "work-"+strings.ReplaceAll(c.name, " ", "-"))
		_, errOut, err := execute(t, f, append([]string{"run", seq, "--out", work, "--tracks", tracks, "--min-segment", "0", "--uniform"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error()+errOut, c.want) {
			t.Errorf("%s: err %v, want one naming %q\n%s", c.name, err, c.want, errOut)
		}
		if _, err := os.Stat(filepath.Join(work, "synth01")); !os.IsNotExist(err) {
			t.Errorf("%s: the run left %s/synth01 behind (%v)", c.name, work, err)
		}
	}
	if len(d.trains) != 0 {
		t.Fatalf("%d trainings after refused runs", len(d.trains))
	}

	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, prior)
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if _, errOut, err := execute(t, f, "run", seq, "--out", work, "--tracks", tracks, "--min-segment", "0", "--uniform", "--init", rel, "--rounds", "1"); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if len(d.trains) != 2 || d.trains[0].Init != prior || d.trains[1].Init != filepath.Join(work, "synth01", "model-uniform", "model.ckpt") {
		for i, tr := range d.trains {
			t.Logf("training %d starts from %q", i, tr.Init)
		}
		t.Errorf("%d trainings; want 2, the first from %s, the round from the first model", len(d.trains), prior)
	}
}
