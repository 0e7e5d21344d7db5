package trainset

import (
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hand-edited manifest (version, hard-example factor, a file outside the
// set) and a damaged array are refused, naming the file.
func TestCheckSetRefusesDamage(t *testing.T) {
	o := DefaultOptions()
	o.MinSegment, o.ColourWindow, o.CutBackground = 0, 0, false
	set, err := Prepare(fixture(), o)
	if err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T) (string, string) {
		dir := filepath.Join(t.TempDir(), "set")
		img := image.NewRGBA(image.Rect(0, 0, 40, 30))
		if err := set.Write(dir, func(int) string { return "frame.png" }, func(string) (image.Image, error) { return img, nil }, nil); err != nil {
			t.Fatal(err)
		}
		if err := CheckSet(dir); err != nil {
			t.Fatalf("a fresh set: %v", err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
		return dir, string(b)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"version": 4`, `"version": 99`, "version 99: this densify reads prepared sets of versions 1 to 4"},
		{`"version": 4`, `"version": 0`, "version 0:"},
		{`"Factor": 1000`, `"Factor": -1000`, "hard-example factor must be in (0, 1e6], got -1000"},
		{`"mode": "binary"`, `"mode": "both"`, `unknown mode "both"`},
		{`"frames/00000_labels.npy"`, `"../00000_labels.npy"`, `"../00000_labels.npy" is not a file of the set`},
	} {
		dir, m := write(t)
		edited := strings.Replace(m, c.old, c.new, 1)
		if edited == m {
			t.Fatalf("manifest has no %s", c.old)
		}
		os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(edited), 0o644)
		err := CheckSet(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "manifest.json")+": invalid manifest: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: %v", c.old, c.new, err)
		}
		if _, err := ReadManifest(dir); err == nil {
			t.Errorf("%s → %s: ReadManifest accepts it", c.old, c.new)
		}
	}
	dir, _ := write(t)
	p := filepath.Join(dir, "frames", "00000_weights.npy")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-7], 0o644)
	if err := CheckSet(dir); err == nil || !strings.Contains(err.Error(), p+": npy: file has") {
		t.Errorf("truncated array: %v", err)
	}
	os.Remove(p)
	if err := CheckSet(dir); err == nil || !strings.Contains(err.Error(), "00000_weights.npy") {
		t.Errorf("missing array: %v", err)
	}
}
