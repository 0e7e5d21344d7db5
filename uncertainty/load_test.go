package uncertainty

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A labelling whose cluster is not connected through E is refused, naming
// the labels file; lifted edges do not connect.
func TestLoadInstanceRefusesDisconnectedCluster(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.txt")
	os.WriteFile(g, []byte("3 2\n0 1 1 0\n1 2 1 1\n"), 0o644)
	ok := filepath.Join(dir, "ok.txt")
	os.WriteFile(ok, []byte("0\n0\n1\n"), 0o644)
	if _, _, err := LoadInstance(g, ok); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0\n1\n0\n"), 0o644)
	if _, _, err := LoadInstance(g, bad); err == nil || !strings.Contains(err.Error(), bad+": not a multicut of "+g+": multicut: cluster 0 is not connected through E (nodes 0 and 2)") {
		t.Errorf("disconnected cluster: %v", err)
	}
}

// The label column of an uncertainty CSV must group the nodes as the given
// labelling does (numbers may differ).
func TestReadCSVForChecksTheLabelling(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "u.csv")
	os.WriteFile(p, []byte("node,label,gamma,uncertainty,likelihood_uncertainty,target\n0,5,1,0.2,0.1,7\n1,5,1,0.3,0.1,7\n2,7,1,0.4,0.1,5\n"), 0o644)
	u, err := ReadCSVFor(p, []int{0, 0, 1})
	if err != nil || u[2] != 0.4 {
		t.Fatalf("%v %v", u, err)
	}
	for _, labels := range [][]int{{0, 1, 1}, {0, 0, 0}, {0, 1, 2}} {
		if _, err := ReadCSVFor(p, labels); err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), "the uncertainty of another segmentation") {
			t.Errorf("labels %v: %v", labels, err)
		}
	}
	if _, err := ReadCSV(p, 3); err != nil {
		t.Error(err)
	}
}
