package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/refine"
)

func TestLockConflictStaleAndRelease(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "seq")
	l, err := AcquireLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	var info LockInfo
	b, err := os.ReadFile(filepath.Join(dir, LockName))
	if err != nil || json.Unmarshal(b, &info) != nil || info.PID != os.Getpid() || info.Host == "" {
		t.Fatalf("lock file %q, %v", b, err)
	}
	// A second acquisition (this process is alive) fails and names the holder.
	_, err = AcquireLock(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir+" is in use by pid ") || !strings.Contains(err.Error(), filepath.Join(dir, LockName)) {
		t.Fatalf("second lock: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockName)); !os.IsNotExist(err) {
		t.Fatal("lock file left after release")
	}
	// A lock of a process that has exited (a crash) is stale and taken over.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run a child process:", err)
	}
	dead := info
	dead.PID = cmd.Process.Pid
	dead.PIDStart = ""
	b, _ = json.Marshal(dead)
	if err := os.WriteFile(filepath.Join(dir, LockName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = AcquireLock(dir)
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	l.Release()
	// Our own PID with another start time: a reused PID, stale as well.
	reused := info
	reused.PIDStart = "1"
	b, _ = json.Marshal(reused)
	os.WriteFile(filepath.Join(dir, LockName), b, 0o644)
	if l, err = AcquireLock(dir); err != nil {
		t.Fatalf("lock of a reused PID not taken over: %v", err)
	}
	l.Release()
	// Another host cannot be checked: held.
	other := info
	other.Host = "elsewhere"
	b, _ = json.Marshal(other)
	os.WriteFile(filepath.Join(dir, LockName), b, 0o644)
	if _, err = AcquireLock(dir); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "on elsewhere") || !strings.Contains(err.Error(), "remove the lock file") {
		t.Fatalf("other host: %v", err)
	}
}

// Two runs on the same sequence conflict: the second fails at once and
// writes nothing; runs on disjoint sequences of one work folder do not.
func TestRunLocksSequences(t *testing.T) {
	root, tracks := tinySequence(t)
	work := filepath.Join(t.TempDir(), "work")
	held, err := LockSequences(work, []dataset.SequenceInfo{{Name: "tiny"}})
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeDensifier{}
	var log bytes.Buffer
	_, err = Run(context.Background(), root, work, testOptions(tracks, fake, &log))
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), filepath.Join(work, "tiny")+" is in use by pid") {
		t.Fatalf("second run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "report.md")); err == nil {
		t.Error("the locked-out run wrote a report")
	}
	if _, _, err := PrepareDataset(root, work, testOptions(tracks, fake, &log)); !errors.Is(err, ErrLocked) {
		t.Errorf("PrepareDataset: %v", err)
	}
	// Another sequence of the same work folder is not blocked.
	other, err := LockSequences(work, []dataset.SequenceInfo{{Name: "other"}})
	if err != nil {
		t.Errorf("disjoint sequence: %v", err)
	}
	other.Release()
	held.Release()
	if _, err := Run(context.Background(), root, work, testOptions(tracks, fake, &log)); err != nil {
		t.Fatalf("after release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "tiny", LockName)); !os.IsNotExist(err) {
		t.Error("lock left after the run")
	}
}

// Absurd settings are refused before the work folder is touched.
func TestOptionsValidatedBeforeWork(t *testing.T) {
	root, tracks := tinySequence(t)
	for _, c := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.Train.LR = 1e300 }, "learning rate must be in (0, 1]"},
		{func(o *Options) { o.Train.Schedule = "step" }, "unknown learning-rate schedule \"step\""},
		{func(o *Options) { o.Sparsify.Step = 1e-12 }, "sparsify: step must be in [0.0001, 1]"},
		{func(o *Options) { o.HeatmapEvery = 0 }, "heat maps: every must be in [1, 1000000]"},
		{func(o *Options) { o.Prepare.Factor = -1 }, "hard-example factor"},
		{func(o *Options) { o.Eval.Threshold = 2 }, "eval: threshold must be in (0, 1)"},
		{func(o *Options) { o.Segment.Solver = "nope" }, `unknown solver "nope"`},
		{func(o *Options) { o.Train.Seed, o.Seeds = math.MaxInt64, 2 }, "--seed 9223372036854775807 with --seeds 2"},
		{func(o *Options) {
			o.Train.Cut = &refine.CutOptions{Net: 0.5, Components: 5, Iterations: 2, Confident: 0.9, Band: 0.1}
		}, "predict: refine: "},
	} {
		var log bytes.Buffer
		o := testOptions(tracks, &fakeDensifier{}, &log)
		c.mod(&o)
		work := filepath.Join(t.TempDir(), "work")
		if _, err := Run(context.Background(), root, work, o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		if _, err := os.Stat(work); err == nil {
			t.Errorf("%q: work folder created", c.want)
		}
	}
}

// A report that cannot be written is an error naming the cause, and the
// report has no path (the command prints none).
func TestUnwritableReport(t *testing.T) {
	root, tracks := tinySequence(t)
	work := filepath.Join(t.TempDir(), "work")
	if err := os.MkdirAll(filepath.Join(work, "report.md", "x"), 0o755); err != nil { // a folder where the report goes
		t.Fatal(err)
	}
	var log bytes.Buffer
	rep, err := Run(context.Background(), root, work, testOptions(tracks, &fakeDensifier{}, &log))
	if err == nil || !strings.Contains(err.Error(), "the report could not be written: ") || !strings.Contains(err.Error(), "report.md") {
		t.Fatalf("err = %v", err)
	}
	if rep == nil || rep.ReportPath != "" || strings.Contains(log.String(), "report: ") {
		t.Errorf("report path %q; log:\n%s", rep.ReportPath, log.String())
	}
}
