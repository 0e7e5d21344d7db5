package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fakeDAVIS makes a DAVIS 2016 root holding the named sequences (one frame
// and one annotation each) and returns it.
func fakeDAVIS(t *testing.T, seqs ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, s := range seqs {
		for _, d := range []string{"JPEGImages", "Annotations"} {
			dir := filepath.Join(root, d, "480p", s)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "00000.jpg"), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// davisRoot runs davis_root of scripts/davis-roots.sh in work with the roots.
func davisRoot(t *testing.T, work string, roots ...string) (string, error) {
	t.Helper()
	need(t, "bash")
	cmd := exec.Command("bash", "-c", `. ./davis-roots.sh && davis_root "$@"`, "davis_root", work)
	cmd.Args = append(cmd.Args, roots...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil {
		return errOut.String(), err
	}
	return strings.TrimSpace(out.String()), nil
}

// One root is read as it is; two are joined into WORK/davis, whose
// sequences are those of both, frames and annotations, by link; a sequence
// in both roots and a folder that is not a DAVIS root are refused by name.
func TestDavisRootJoinsTheDevelopmentRoots(t *testing.T) {
	a, b := fakeDAVIS(t, "blackswan", "cows"), fakeDAVIS(t, "bus")
	work := t.TempDir()
	if got, err := davisRoot(t, work, a); err != nil || got != a {
		t.Fatalf("one root: %q, %v; want %s", got, err, a)
	}
	got, err := davisRoot(t, work, a, b)
	if err != nil {
		t.Fatalf("two roots: %v: %s", err, got)
	}
	if got != filepath.Join(work, "davis") {
		t.Fatalf("joined root %q, want %s", got, filepath.Join(work, "davis"))
	}
	for _, d := range []string{"JPEGImages", "Annotations"} {
		ents, err := os.ReadDir(filepath.Join(got, d, "480p"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(got, d, "480p", e.Name(), "00000.jpg"))
			if err != nil || string(data) != e.Name() {
				t.Errorf("%s/%s: %q, %v", d, e.Name(), data, err)
			}
			names = append(names, e.Name())
		}
		sort.Strings(names)
		if strings.Join(names, " ") != "blackswan bus cows" {
			t.Errorf("%s: %v, want blackswan bus cows", d, names)
		}
	}
	if msg, err := davisRoot(t, work, a, fakeDAVIS(t, "cows")); err == nil || !strings.Contains(msg, "sequence cows is in two DAVIS roots") {
		t.Errorf("duplicate sequence: %q, %v", msg, err)
	}
	empty := t.TempDir()
	if msg, err := davisRoot(t, work, a, empty); err == nil || !strings.Contains(msg, "no DAVIS data at "+empty) {
		t.Errorf("not a DAVIS root: %q, %v", msg, err)
	}
}
