package main

// In-process tests: the command tree built on a Factory with buffers for
// streams, as gh tests its commands.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// execute runs densify args in-process and returns stdout and stderr.
func execute(t testing.TB, f *Factory, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	f.IO = &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// Results go to the command's Out, per-item log lines to its ErrOut; the
// numbers are those of the hand-solvable instance.
func TestCommandsInProcess(t *testing.T) {
	dir := t.TempDir()
	f := &Factory{}
	graph := filepath.Join(dir, "g.txt")
	os.WriteFile(graph, []byte("4 4\n0 1 5 0\n2 3 5 0\n1 2 -3 0\n0 3 -1 1\n"), 0o644)
	out, _, err := execute(t, f, "multicut", "--graph", graph, "--out", filepath.Join(dir, "l.txt"))
	if err != nil || !strings.Contains(out, "→ 2 clusters, energy -4") {
		t.Fatalf("multicut: %v\n%s", err, out)
	}
	out, errOut, err := execute(t, f, "synth", "--out", filepath.Join(dir, "data"), "--tracks", "--frames", "6",
		"--width", "96", "--height", "72", "--gt-every", "3")
	if err != nil || out != "" || !strings.HasPrefix(errOut, "[1/1] synth01: 6 frames 96x72") {
		t.Fatalf("synth: %v\nstdout %q\nstderr %q", err, out, errOut)
	}
	seq := filepath.Join(dir, "data", "synth01")
	gt := filepath.Join(seq, "synth01Tracks6_gt.dat")
	bad := filepath.Join(seq, "synth01Tracks6_corrupt.dat")
	out, errOut, err = execute(t, f, "eval", "--gt", seq, "--tracks", gt, "--tracks", bad)
	if err != nil || !strings.Contains(out, "Precision, Recall, F:    100.00  100.00  100.00 %") ||
		!strings.Contains(out, "n=2") || !strings.Contains(errOut, "eval: 2/2") {
		t.Fatalf("eval best-of-2: %v\nstdout %s\nstderr %s", err, out, errOut)
	}
	// segment of the ground-truth tracks, then the uncertainty summary
	if out, _, err = execute(t, f, "segment", "--tracks", gt, "--out", filepath.Join(dir, "seg")); err != nil ||
		!strings.HasPrefix(out, "synth01Tracks6_gt: ") {
		t.Fatalf("segment: %v\n%s", err, out)
	}
	out, _, err = execute(t, f, "uncertainty", "--graph", filepath.Join(dir, "seg", "graph.txt"),
		"--labels", filepath.Join(dir, "seg", "labels.txt"), "--out", filepath.Join(dir, "u.csv"))
	if err != nil || !strings.Contains(out, "can move (γ < inf)") || !strings.Contains(out, "cluster 0:") {
		t.Fatalf("uncertainty: %v\n%s", err, out)
	}
	// track and a tracking segment need the factory's tracker
	if _, _, err = execute(t, f, "segment", "--frames", seq, "--out", filepath.Join(dir, "seg2")); err == nil ||
		!strings.Contains(err.Error(), "no tracker") {
		t.Fatalf("segment without a tracker: %v", err)
	}
}
