package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteRoundTripAndNoPartialOutput(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "a.txt")
	if err := WriteBytes(p, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "hello" {
		t.Fatalf("got %q, %v", b, err)
	}
	// A failing writer must leave the old content and no temporary file.
	boom := errors.New("boom")
	err = Write(p, func(w io.Writer) error { w.Write([]byte("partial")); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("want boom, got %v", err)
	}
	b, _ = os.ReadFile(p)
	if string(b) != "hello" {
		t.Fatalf("old content lost: %q", b)
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

func TestReplaceDir(t *testing.T) {
	root := t.TempDir()
	dst := filepath.Join(root, "set")
	mk := func(name, content string) string {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "f"), []byte(content), 0o644)
		return d
	}
	// No destination yet.
	if err := ReplaceDir(mk("tmp1", "one"), dst); err != nil {
		t.Fatal(err)
	}
	// Replacing: the new content only, no leftovers beside it.
	mk("tmp2", "two")
	os.WriteFile(filepath.Join(dst, "stale"), []byte("x"), 0o644)
	if err := ReplaceDir(filepath.Join(root, "tmp2"), dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "f")); string(b) != "two" {
		t.Fatalf("content %q", b)
	}
	if _, err := os.Stat(filepath.Join(dst, "stale")); err == nil {
		t.Fatal("old folder content survived")
	}
	if ents, _ := os.ReadDir(root); len(ents) != 1 {
		t.Fatalf("leftovers: %v", ents)
	}
	// A missing source fails and keeps the old folder.
	if err := ReplaceDir(filepath.Join(root, "missing"), dst); err == nil {
		t.Fatal("missing source accepted")
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "f")); string(b) != "two" {
		t.Fatalf("old folder not restored: %q", b)
	}
}

// Output names of 242–255 bytes are legal; their temporary names (and the
// ".old" name of ReplaceDir) must stay within NameMax too.
func TestLongNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{1, 240, 241, 242, 250, 251, 252, 255} {
		name := strings.Repeat("a", n-1) + "b"
		p := filepath.Join(dir, name)
		for round := 0; round < 2; round++ { // create, then replace
			if err := WriteBytes(p, []byte("aa"[:round+1])); err != nil {
				t.Fatalf("%d bytes: %v", n, err)
			}
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != "aa" {
			t.Fatalf("%d bytes: %q, %v", n, b, err)
		}
		if got := TempPattern(name); len(got)-1+randomDigits > NameMax {
			t.Errorf("%d bytes: temp pattern %q too long", n, got)
		}
		// ReplaceDir with a long folder name, twice (the second replaces).
		d := filepath.Join(dir, strings.Repeat("d", n))
		for round := 0; round < 2; round++ {
			tmp, err := os.MkdirTemp(dir, TempPattern(filepath.Base(d)))
			if err != nil {
				t.Fatalf("%d bytes: %v", n, err)
			}
			if err := ReplaceDir(tmp, d); err != nil {
				t.Fatalf("%d bytes: %v", n, err)
			}
		}
		os.RemoveAll(d)
		os.Remove(p)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if TempPattern("x.json") != ".x.json.tmp*" || Beside("m", ".old") != "m.old" {
		t.Error("short names changed")
	}
}

// TempDir removes the temporaries a killed run left for the same
// destination, and nothing else.
func TestTempDirRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("m", 250)
	stale := []string{".masks.tmp123", ".masks.tmp4", TempPattern(long)[:len(TempPattern(long))-1] + "77"}
	keep := []string{".masks.tmpx", ".other.tmp12", "masks.tmp", ".masks.tmp", ".masks.old", ".masks.tmp12.tmp3"}
	for _, n := range append(slices.Clone(stale), keep...) {
		if err := os.MkdirAll(filepath.Join(dir, n, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tmp, err := TempDir(filepath.Join(dir, "masks"))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(tmp); err != nil || st.Mode().Perm() != 0o755 || !isTempOf(filepath.Base(tmp), "masks") {
		t.Fatalf("%s: %v %v", tmp, st, err)
	}
	if _, err := TempDir(filepath.Join(dir, long)); err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(dir, n)); !os.IsNotExist(err) {
			t.Errorf("stale %s kept: %v", n, err)
		}
	}
	for _, n := range keep {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
}

func TestCheckReplaceable(t *testing.T) {
	dir := t.TempDir()
	own := func(rel string, isDir bool) bool { return rel == "prob" && isDir || strings.HasSuffix(rel, ".png") }
	out := filepath.Join(dir, "out")
	if err := CheckReplaceable(out, "--out", own); err != nil {
		t.Errorf("missing: %v", err)
	}
	os.MkdirAll(filepath.Join(out, "prob"), 0o755)
	os.WriteFile(filepath.Join(out, "00000.png"), nil, 0o644)
	os.WriteFile(filepath.Join(out, "prob", "00000.png"), nil, 0o644)
	if err := CheckReplaceable(out, "--out", own); err != nil {
		t.Errorf("own: %v", err)
	}
	os.WriteFile(filepath.Join(out, "prob", "notes.txt"), nil, 0o644)
	if err := CheckReplaceable(out, "--out", own); err == nil || !strings.Contains(err.Error(), "--out "+out+" holds "+filepath.Join(out, "prob", "notes.txt")+", which densify did not write there") {
		t.Errorf("stranger: %v", err)
	}
	if err := CheckReplaceable(filepath.Join(out, "00000.png"), "--out", own); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("file: %v", err)
	}
}

// WriteJSON writes two-space indented JSON with a final newline, and a value
// JSON cannot hold leaves the old file as it was.
func TestWriteJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v.json")
	if err := WriteJSON(p, map[string]any{"a": 1, "b": []int{2}}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}\n"
	if b, _ := os.ReadFile(p); string(b) != want {
		t.Fatalf("got %q, want %q", b, want)
	}
	if err := WriteJSON(p, map[string]any{"c": func() {}}); err == nil {
		t.Fatal("a func was written as JSON")
	}
	if b, _ := os.ReadFile(p); string(b) != want {
		t.Fatalf("old content lost: %q", b)
	}
}
