package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// A result.json with numbers densify never writes (a damaged or edited
// file) is a failed sequence, not a row of absurd numbers.
func TestMergeRefusesAbsurdNumbers(t *testing.T) {
	root, tracks := tinySequence(t)
	work := t.TempDir()
	var log bytes.Buffer
	if _, err := Run(context.Background(), root, work, testOptions(tracks, &fakeDensifier{}, &log)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(work, "tiny", ResultName)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for value, want := range map[string]string{
		"-7e300": "result.sparse.precision = -7e300 is beyond ±1e+15: not a result densify writes",
		"1.5":    "sparse precision 1.5 outside [0, 1]",
	} {
		var rec map[string]any
		json.Unmarshal(orig, &rec)
		rec["result"].(map[string]any)["sparse"].(map[string]any)["precision"] = json.Number(value)
		b, _ := json.Marshal(rec)
		os.WriteFile(path, b, 0o644)
		rep, _, err := Merge(work, nil)
		if err == nil || !strings.Contains(err.Error(), "1 failed (tiny)") {
			t.Fatalf("%s: err = %v", value, err)
		}
		if !strings.Contains(rep.Sequences[0].Error, path+": "+want) {
			t.Errorf("%s: %q, want %q", value, rep.Sequences[0].Error, want)
		}
		md, _ := os.ReadFile(filepath.Join(work, "report.md"))
		if strings.Contains(string(md), "700000000000") {
			t.Errorf("%s: the report prints it", value)
		}
	}
	// The dense masks' other Js (besideJ: away from thin parts, the DAVIS
	// benchmark's, the two bounds) are fractions like J, each checked under
	// its JSON name.
	for _, l := range besideJ {
		var rec map[string]any
		json.Unmarshal(orig, &rec)
		dense := rec["result"].(map[string]any)["dense"].(map[string]any)[string(DefaultVariant)].(map[string]any)["scores"].(map[string]any)
		if _, ok := dense[l.key]; !ok {
			t.Fatalf("the dense scores lack %s: %v", l.key, dense)
		}
		dense[l.key] = json.Number("1.5")
		b, _ := json.Marshal(rec)
		os.WriteFile(path, b, 0o644)
		rep, _, err := Merge(work, nil)
		if want := fmt.Sprintf("dense %s %s 1.5 outside [0, 1]", DefaultVariant, l.key); err == nil || !strings.Contains(rep.Sequences[0].Error, want) {
			t.Errorf("%s 1.5: err %v, sequence error %q, want %q", l.key, err, rep.Sequences[0].Error, want)
		}
	}
}
