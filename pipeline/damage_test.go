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
