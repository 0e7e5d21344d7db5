package uncertainty

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "u.csv")
	os.WriteFile(p, []byte("node,label,gamma,uncertainty,likelihood_uncertainty\n1,0,inf,0,0.2\n0,1,-0.5,0.6224593,0.9\n"), 0o644)
	u, err := ReadCSV(p, 2)
	if err != nil || u[0] != 0.6224593 || u[1] != 0 {
		t.Fatalf("%v %v", u, err)
	}
	for _, c := range []struct{ body, want string }{
		{"node,uncertainty\n0,0.1\n5,0.2\n", "u.csv:3"},
		{"node,uncertainty\n0,NaN\n1,0\n", "u.csv:2"},
		{"node,uncertainty\n0,0.1\n", "no uncertainty for node 1"},
		{"id,u\n", "u.csv:1"},
	} {
		os.WriteFile(p, []byte(c.body), 0o644)
		_, err := ReadCSV(p, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%q: got %v, want %q", c.body, err, c.want)
		}
	}
}
