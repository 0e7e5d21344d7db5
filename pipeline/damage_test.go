package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A prepared set damaged after it was stamped is prepared again by the
// next run (it would otherwise fail every training until --force).
func TestRunPreparesADamagedSetAgain(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	var log bytes.Buffer
	opt := testOptions(tracks, &fakeDensifier{}, &log)
	if _, err := Run(context.Background(), root, work, opt); err != nil {
		t.Fatal(err)
	}
	npy := filepath.Join(work, "tiny", "prepared", "frames", "00000_labels.npy")
	b, err := os.ReadFile(npy)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(npy, b[:len(b)/2], 0o644)
	log.Reset()
	rep, err := Run(context.Background(), root, work, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"track": false, "segment": false, "prepare": true}
	ran(t, rep, want)
	if !strings.Contains(log.String(), "prepared does not load (") || !strings.Contains(log.String(), "00000_labels.npy: npy: file has") {
		t.Errorf("log does not say why:\n%s", log.String())
	}
}

// failingPredict writes part of its output and fails.
type failingPredict struct{ *fakeDensifier }

func (f failingPredict) Predict(ctx context.Context, req PredictRequest) error {
	os.WriteFile(filepath.Join(req.Out, "00000.png"), []byte("partial"), 0o644)
	return errors.New("killed")
}

// A failed prediction leaves no temporary folder in the work folder.
func TestRunFailedPredictLeavesNoTemporary(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	var log bytes.Buffer
	opt := testOptions(tracks, failingPredict{&fakeDensifier{}}, &log)
	if _, err := Run(context.Background(), root, work, opt); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("err = %v", err)
	}
	m, _ := filepath.Glob(filepath.Join(work, "tiny", "*masks*"))
	h, _ := filepath.Glob(filepath.Join(work, "tiny", ".*masks*"))
	if len(m)+len(h) > 0 {
		t.Errorf("left behind: %v %v", m, h)
	}
}
