package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/densify/densify/pipeline"
)

// manifestArgs reads the container args (a one-line JSON array) of a
// manifest in deploy/k8s.
func manifestArgs(t *testing.T, name string) (string, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", name))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*args: (\[.*\])\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no args line", name)
	}
	var args []string
	if err := json.Unmarshal(m[1], &args); err != nil {
		t.Fatalf("%s: args: %v", name, err)
	}
	return string(b), args
}

// The example Kubernetes manifests (which cannot run here) stay valid
// densify command lines: the Indexed Job's --shard auto/N has N equal to
// its completions, every pod's index gives a valid shard, and the flags
// exist.
func TestKubernetesManifests(t *testing.T) {
	text, args := manifestArgs(t, "indexed-job.yaml")
	root := NewCmdRoot(NewFactory())
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != "run" {
		t.Fatalf("indexed job runs %v (%v)", cmd, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("indexed job args %q: %v", args, err)
	}
	shard, _ := cmd.Flags().GetString("shard")
	m := regexp.MustCompile(`(?m)^\s*completions: (\d+)\s*$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("indexed-job.yaml: no completions")
	}
	n, _ := strconv.Atoi(m[1])
	if shard != "auto/"+m[1] {
		t.Errorf("--shard %q, want auto/%d (the Job's completions)", shard, n)
	}
	for i := range n {
		s, err := pipeline.ParseShard(shard, mapEnv("JOB_COMPLETION_INDEX", strconv.Itoa(i)))
		if err != nil || s.Index != i || s.Count != n {
			t.Errorf("pod %d: shard %+v, %v", i, s, err)
		}
	}
	_, args = manifestArgs(t, "report-job.yaml")
	cmd, rest, err = root.Find(args)
	if err != nil || cmd.Name() != "report" || cmd.ValidateArgs(rest) != nil {
		t.Errorf("report job runs %v %q (%v)", cmd, rest, err)
	}
}
