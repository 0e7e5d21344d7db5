package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/densify/densify/internal/testutil"
	"github.com/densify/densify/pipeline"
)

// benchSequenceDefault is the DAVIS 2016 development sequence that
// BenchmarkRunSequence runs when DENSIFY_BENCH_SEQUENCE is unset.
const benchSequenceDefault = "car-shadow"

// BenchmarkRunSequence runs `densify run` with its defaults (the production
// wiring of NewFactory: OpenCV tracker, libtorch U-Net) on one sequence,
// in-process through the command tree, into a fresh work folder per
// iteration, and reports per run the seconds of each stage as recorded in
// the run's report.json: track-s, segment-s, uncertainty-s, prepare-s,
// train-s, predict-s and eval-s (sparse and dense evaluation together;
// absent for a sequence without ground truth), total-s (the wall time of the
// whole command, stages plus sequence discovery and the report), epochs (of
// the trained model) and peak-rss-MiB (the peak resident set of the test
// process, getrusage's maxrss). One run takes many minutes (the default
// training budget alone about 5 on 2 cores), so the first iteration, which
// the testing package runs with b.N = 1 before it measures, is the only one.
//
// The sequence is car-shadow of ../shared/data/davis2016-dev (beside the
// repository; DENSIFY_DAVIS moves that root, as for the other DAVIS tests);
// the benchmark skips when it is absent. DENSIFY_BENCH_SEQUENCE names
// another: a sequence folder (FBMS layout), ROOT:NAME for the sequence NAME
// of a dataset root (a DAVIS 2016 root, for one), or a bare NAME of the
// DAVIS development root; relative paths are relative to the repository
// root. DENSIFY_BENCH_QUICK=1 trains for 1 epoch instead of the default
// budget (a smoke check of a few minutes; its train-s and predict-s are not
// those of a default run).
func BenchmarkRunSequence(b *testing.B) {
	root, seq := benchSequence(b)
	quick := os.Getenv("DENSIFY_BENCH_QUICK") == "1"
	var sum map[string]float64
	for i := 0; i < b.N; i++ {
		work := filepath.Join(b.TempDir(), "work")
		args := []string{"run", root, "--out", work}
		if seq != "" {
			args = append(args, "--sequences", seq)
		}
		if quick {
			args = append(args, "--epochs", "1")
		}
		t0 := time.Now()
		_, errOut, err := execute(b, NewFactory(), args...)
		total := time.Since(t0).Seconds()
		if err != nil {
			b.Fatalf("densify %s: %v\n%s", strings.Join(args, " "), err, tail(errOut, 40))
		}
		m, err := runMetrics(filepath.Join(work, "report.json"))
		if err != nil {
			b.Fatalf("%v\n%s", err, tail(errOut, 40))
		}
		m["total-s"] = total
		if sum == nil {
			sum = map[string]float64{}
		}
		for k, v := range m {
			sum[k] += v
		}
	}
	for k, v := range sum {
		b.ReportMetric(v/float64(b.N), k)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB") // Linux: KiB
	}
}

// benchSequence resolves DENSIFY_BENCH_SEQUENCE (see BenchmarkRunSequence)
// into the argument of `densify run` and the sequence to select from it
// ("" when root is the sequence itself). It skips when the default
// sequence is absent and fails when a named one is.
func benchSequence(b *testing.B) (root, seq string) {
	b.Helper()
	v := os.Getenv("DENSIFY_BENCH_SEQUENCE")
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(testutil.RepoRoot(), p)
	}
	isDir := func(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }
	switch {
	case v == "":
		root, seq = testutil.DAVISDev(b), benchSequenceDefault
		if !isDir(filepath.Join(root, "JPEGImages", "480p", seq)) {
			b.Skipf("DAVIS development sequence %s not found in %s", seq, root)
		}
		return root, seq
	case isDir(abs(v)):
		return abs(v), ""
	case strings.LastIndex(v, ":") > 0:
		i := strings.LastIndex(v, ":")
		root, seq = abs(v[:i]), v[i+1:]
	case !strings.ContainsRune(v, filepath.Separator):
		root, seq = testutil.DAVISDev(b), v
	default:
		b.Fatalf("DENSIFY_BENCH_SEQUENCE=%s: no such folder", v)
	}
	if !isDir(root) || seq == "" {
		b.Fatalf("DENSIFY_BENCH_SEQUENCE=%s: want a sequence folder, ROOT:NAME or a DAVIS development NAME", v)
	}
	return root, seq
}

// runMetrics reads a run's report.json (one sequence) and returns the
// seconds of its stages by group: track, segment, uncertainty and prepare
// by name, train-<run> and predict-<run> summed over the runs, eval-sparse
// and eval-dense-<run> together as eval-s; plus the trained epochs. Every
// stage but eval must have run (not skipped), so the seconds are this run's.
func runMetrics(reportJSON string) (map[string]float64, error) {
	data, err := os.ReadFile(reportJSON)
	if err != nil {
		return nil, err
	}
	var rep pipeline.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", reportJSON, err)
	}
	if len(rep.Sequences) != 1 {
		return nil, fmt.Errorf("%s: %d sequences, want 1", reportJSON, len(rep.Sequences))
	}
	s := rep.Sequences[0]
	if s.Error != "" {
		return nil, fmt.Errorf("%s: %s", s.Name, s.Error)
	}
	m := map[string]float64{}
	for _, st := range s.Stages {
		var key string
		switch name := st.Stage; {
		case name == "track" || name == "segment" || name == "uncertainty" || name == "prepare":
			key = name
		case strings.HasPrefix(name, "train-"):
			key = "train"
		case strings.HasPrefix(name, "predict-"):
			key = "predict"
		case strings.HasPrefix(name, "eval-"):
			key = "eval"
		default:
			continue
		}
		if st.Skipped {
			return nil, fmt.Errorf("%s: stage %s skipped (%s) in a fresh work folder", s.Name, st.Stage, st.Reason)
		}
		m[key+"-s"] += st.Seconds
	}
	for _, k := range []string{"track", "segment", "uncertainty", "prepare", "train", "predict"} {
		if _, ok := m[k+"-s"]; !ok {
			return nil, fmt.Errorf("%s: no %s stage in %s", s.Name, k, reportJSON)
		}
	}
	for _, d := range s.Dense {
		if d.Train != nil {
			m["epochs"] += float64(d.Train.Epochs)
		}
	}
	return m, nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// runMetrics groups the stages of report.json into the benchmark's
// metrics and refuses reports whose timings are not of a full run.
func TestRunMetrics(t *testing.T) {
	dir := t.TempDir()
	write := func(stages []pipeline.StageStatus, dense map[pipeline.Variant]*pipeline.DenseResult) string {
		rep := pipeline.Report{Sequences: []*pipeline.SequenceResult{{Name: "s", Stages: stages, Dense: dense}}}
		data, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "report.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stages := []pipeline.StageStatus{{Stage: "track", Seconds: 1}, {Stage: "segment", Seconds: 2},
		{Stage: "uncertainty", Seconds: 3}, {Stage: "eval-sparse", Seconds: 0.25}, {Stage: "prepare", Seconds: 4},
		{Stage: "train-uniform", Seconds: 5}, {Stage: "predict-uniform", Seconds: 6}, {Stage: "eval-dense-uniform", Seconds: 0.5}}
	dense := map[pipeline.Variant]*pipeline.DenseResult{"uniform": {Train: &pipeline.TrainResult{Epochs: 15}}}
	m, err := runMetrics(write(stages, dense))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"track-s": 1, "segment-s": 2, "uncertainty-s": 3, "prepare-s": 4,
		"train-s": 5, "predict-s": 6, "eval-s": 0.75, "epochs": 15}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		t.Errorf("metrics %v, want %v", m, want)
	}
	skipped := append([]pipeline.StageStatus(nil), stages...)
	skipped[0].Skipped = true
	if _, err := runMetrics(write(skipped, dense)); err == nil || !strings.Contains(err.Error(), "track skipped") {
		t.Errorf("skipped stage: %v", err)
	}
	if _, err := runMetrics(write(stages[:5], dense)); err == nil || !strings.Contains(err.Error(), "no train stage") {
		t.Errorf("no training: %v", err)
	}
}
