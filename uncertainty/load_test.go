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
