package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/synth"
	"github.com/densify/densify/trajectory"
)

// threeSequences writes sequences a, b, c (different seeds) into one root
// folder with their ground-truth trajectories; TracksFor of the returned
// options hands them over.
func threeSequences(t *testing.T, log *bytes.Buffer) (root string, opt Options, fd *fakeDensifier) {
	t.Helper()
	root = t.TempDir()
	tracks := map[string]string{}
	for i, name := range []string{"c", "a", "b"} {
		p := synth.DefaultParams()
		p.Width, p.Height, p.Frames, p.Objects, p.GTEvery, p.Seed = 96, 72, 8, 1, 4, int64(10+i)
		s, err := synth.Generate(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(root, name); err != nil {
			t.Fatal(err)
		}
		tracks[name] = filepath.Join(t.TempDir(), name+"Tracks8_gt.dat")
		if err := trajectory.WriteTracks(tracks[name], s.GroundTruthTracks(4)); err != nil {
			t.Fatal(err)
		}
	}
	fd = &fakeDensifier{}
	opt = testOptions("", fd, log)
	opt.TracksFor = func(seq string) string { return tracks[seq] }
	return root, opt, fd
}

// deterministic is Report.Deterministic.
func deterministic(t *testing.T, rep *Report) string {
	t.Helper()
	s, err := rep.Deterministic()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readReport(t *testing.T, work string) *Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(work, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// Two shards into one work folder, then Merge: the same report as one
// sequential run of the three sequences; Merge computes nothing; before the
// second shard the merged report lists its sequence as missing.
func TestShardsMergeToTheSequentialReport(t *testing.T) {
	var log bytes.Buffer
	root, opt, fd := threeSequences(t, &log)
	ctx := context.Background()

	seqWork := filepath.Join(t.TempDir(), "sequential")
	if _, err := Run(ctx, root, seqWork, opt); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	ranSeq := len(fd.trains)
	if ranSeq != 3 {
		t.Fatalf("%d trainings, want 3", ranSeq)
	}
	// Run built its report from the result files: Merge writes the same bytes.
	before, _ := os.ReadFile(filepath.Join(seqWork, "report.json"))
	beforeMD, _ := os.ReadFile(filepath.Join(seqWork, "report.md"))
	if _, _, err := Merge(seqWork, nil); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(seqWork, "report.json"))
	afterMD, _ := os.ReadFile(filepath.Join(seqWork, "report.md"))
	if !bytes.Equal(before, after) || !bytes.Equal(beforeMD, afterMD) {
		t.Errorf("Merge rewrote Run's report differently:\n%s\n---\n%s", before, after)
	}

	work := filepath.Join(t.TempDir(), "sharded")
	o0 := opt
	o0.Shard = Shard{Index: 0, Count: 2, Source: "test"}
	log.Reset()
	rep0, err := Run(ctx, root, work, o0)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if got := [2]string{rep0.Sequences[0].Name, rep0.Sequences[1].Name}; len(rep0.Sequences) != 2 || got != [2]string{"a", "c"} {
		t.Errorf("shard 0/2 ran %v, want a and c", rep0.Sequences)
	}
	if !strings.Contains(log.String(), "shard 0/2 (test): 2 of 3 sequences: a, c") ||
		!strings.Contains(log.String(), "densify report "+work) {
		t.Errorf("log:\n%s", log.String())
	}
	if _, err := os.Stat(filepath.Join(work, "report.md")); err == nil {
		t.Error("a shard wrote the dataset report")
	}
	rep, _, err := Merge(work, nil)
	if err == nil || !strings.Contains(err.Error(), "1 missing (b)") {
		t.Errorf("merge of one shard: %v", err)
	}
	md, _ := os.ReadFile(filepath.Join(work, "report.md"))
	if !strings.Contains(string(md), "**Missing** (no result yet; the means leave them out): b.") ||
		!strings.Contains(string(md), "| b (missing) |") || rep.Dense[DefaultVariant].Count != 2 {
		t.Errorf("partial report:\n%s", md)
	}

	o1 := opt
	o1.Shard = Shard{Index: 1, Count: 2, Source: "test"}
	if _, err := Run(ctx, root, work, o1); err != nil {
		t.Fatal(err)
	}
	trains := len(fd.trains)
	rep, _, err = Merge(work, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fd.trains) != trains {
		t.Error("Merge trained")
	}
	if got, want := deterministic(t, readReport(t, work)), deterministic(t, readReport(t, seqWork)); got != want {
		t.Errorf("merged report differs from the sequential one:\n%s\n---\n%s", got, want)
	}
	if rep.Dense[DefaultVariant].Count != 3 || rep.Missing != nil || rep.Failed != nil {
		t.Errorf("merged report %+v", rep)
	}
	var total float64
	for _, s := range rep.Sequences {
		total += s.Seconds()
	}
	if rep.Seconds != total || rep.Started.IsZero() {
		t.Errorf("seconds %v, want the summed stage time %v; started %v", rep.Seconds, total, rep.Started)
	}
}

// A damaged result file and a failed sequence are listed as failed; a
// directory that is no work folder is refused naming plan.json.
func TestMergeFailedAndDamaged(t *testing.T) {
	var log bytes.Buffer
	root, opt, _ := threeSequences(t, &log)
	work := t.TempDir()
	if _, err := Run(context.Background(), root, work, opt); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "a", ResultName), []byte("{\"result\": "), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := readRecord(work, "b")
	if err != nil {
		t.Fatal(err)
	}
	rec.Result.Error = "train: out of memory"
	if err := writeRecord(work, rec); err != nil {
		t.Fatal(err)
	}
	rep, _, err := Merge(work, nil)
	if err == nil || !strings.Contains(err.Error(), "2 failed (a, b)") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(rep.Sequences[0].Error, filepath.Join(work, "a", ResultName)+": unexpected end of JSON input") {
		t.Errorf("damaged result: %q", rep.Sequences[0].Error)
	}
	md, _ := os.ReadFile(filepath.Join(work, "report.md"))
	if !strings.Contains(string(md), "**Failed:** a, b (see below).") || !strings.Contains(string(md), "**Failed:** train: out of memory") {
		t.Errorf("report:\n%s", md)
	}
	if _, _, err := Merge(t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "plan.json: no such file") {
		t.Errorf("no work folder: %v", err)
	}
}

// Sharded ablation: no tables from the shards; Merge writes the same
// ablation.csv as the unsharded ablation.
func TestShardedAblationMerge(t *testing.T) {
	var log bytes.Buffer
	root, opt, _ := threeSequences(t, &log)
	opt.Seeds = 2 // the further seeds' models travel through result.json too
	ctx := context.Background()
	seqWork := t.TempDir()
	if _, _, err := Ablate(ctx, root, seqWork, opt); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for i := range 2 {
		o := opt
		o.Shard = Shard{Index: i, Count: 2}
		a, rep, err := Ablate(ctx, root, work, o)
		if err != nil || a != nil || rep == nil {
			t.Fatalf("shard %d: %v, %v, %v", i, a, rep, err)
		}
		if _, err := os.Stat(filepath.Join(work, "ablation.csv")); err == nil {
			t.Fatalf("shard %d wrote the ablation table", i)
		}
	}
	if _, a, err := Merge(work, nil); err != nil || a == nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(seqWork, "ablation.csv"))
	got, err := os.ReadFile(filepath.Join(work, "ablation.csv"))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("ablation.csv:\n%s\nwant\n%s", got, want)
	}
	for _, line := range []string{"\na,uniform,1,", "\na,uniform,2,", "\nb,weighted,2,", "\nc,uniform,1,"} {
		if !strings.Contains(string(got), line) {
			t.Errorf("ablation.csv lacks %q:\n%s", line, got)
		}
	}
}
