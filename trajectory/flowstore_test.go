package trajectory

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/densify/densify/internal/npy"
)

// frameFiles writes n small files standing for frames and returns their paths.
func frameFiles(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := range n {
		p := filepath.Join(dir, strings.Repeat("f", i+1)+".jpg")
		if err := os.WriteFile(p, []byte(strings.Repeat("x", 10+i)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func TestFlowStoreRoundTrip(t *testing.T) {
	frames := frameFiles(t, 3)
	m, err := NewFlowManifest(frames, "dis {Preset:2}", 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "flows")
	s, err := CreateFlowStore(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	f := &FlowField{W: 3, H: 2, U: []float32{1, -2, 3.5, 0, 0.25, -1e-7}, V: []float32{9, 8, 7, 6, 5, -4}}
	if err := s.Put(1, 2, f); err != nil {
		t.Fatal(err)
	}
	// A fresh handle, as prediction opens it, reads the same field bit for bit.
	o, err := OpenFlowStore(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	g, err := o.Get(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.U {
		if g.U[i] != f.U[i] || g.V[i] != f.V[i] {
			t.Fatalf("sample %d: got (%v, %v), put (%v, %v)", i, g.U[i], g.V[i], f.U[i], f.V[i])
		}
	}
	if _, err := o.Get(2, 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a pair never put: %v, want fs.ErrNotExist", err)
	}
	for _, pair := range [][2]int{{0, 0}, {-1, 0}, {0, 3}} {
		if _, err := o.Get(pair[0], pair[1]); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("pair %v: %v, want an error about the pair", pair, err)
		}
	}
	if err := s.Put(0, 1, &FlowField{W: 2, H: 3, U: make([]float32, 6), V: make([]float32, 6)}); err == nil {
		t.Error("a field of another size was stored")
	}
	// Creating the store again removes the earlier fields.
	if _, err := CreateFlowStore(dir, m); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Get(1, 2); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after CreateFlowStore: %v, want fs.ErrNotExist", err)
	}
}

func TestOpenFlowStoreRefusesOtherFramesOrFlow(t *testing.T) {
	frames := frameFiles(t, 3)
	m, err := NewFlowManifest(frames, "dis a", 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := OpenFlowStore(dir, m); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no store: %v, want fs.ErrNotExist", err)
	}
	if _, err := CreateFlowStore(dir, m); err != nil {
		t.Fatal(err)
	}
	other := func(edit func(*FlowManifest)) FlowManifest {
		o, _ := NewFlowManifest(frames, "dis a", 4, 4)
		edit(&o)
		return o
	}
	cases := map[string]FlowManifest{
		"flow":   other(func(o *FlowManifest) { o.Flow = "farneback a" }),
		"size":   other(func(o *FlowManifest) { o.Width = 5 }),
		"frames": other(func(o *FlowManifest) { o.Frames = o.Frames[:2] }),
	}
	// A frame copied again (another modification time, the same bytes)
	// still matches; a store written before frames had a CRC does not.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(frames[1], later, later); err != nil {
		t.Fatal(err)
	}
	touched, err := NewFlowManifest(frames, "dis a", 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFlowStore(dir, touched); err != nil {
		t.Errorf("a frame with a newer time and the same bytes: %v", err)
	}
	old := m
	old.Frames = append([]FrameStamp(nil), m.Frames...)
	for i := range old.Frames {
		old.Frames[i].CRC = ""
	}
	oldDir := t.TempDir()
	if _, err := CreateFlowStore(oldDir, old); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFlowStore(oldDir, touched); err == nil || !strings.Contains(err.Error(), FlowManifestFile) {
		t.Errorf("a store without CRCs, a touched frame: %v, want a refusal", err)
	}
	// A frame rewritten after tracking with other bytes of the same size.
	if err := os.WriteFile(frames[1], []byte(strings.Repeat("y", 11)), 0o644); err != nil {
		t.Fatal(err)
	}
	rewritten, err := NewFlowManifest(frames, "dis a", 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	cases["modified frame"] = rewritten
	for name, want := range cases {
		if _, err := OpenFlowStore(dir, want); err == nil || !strings.Contains(err.Error(), FlowManifestFile) {
			t.Errorf("%s: %v, want a refusal naming %s", name, err, FlowManifestFile)
		}
	}
}

func TestFlowStoreRefusesBadFiles(t *testing.T) {
	frames := frameFiles(t, 2)
	m, _ := NewFlowManifest(frames, "dis", 3, 2)
	dir := t.TempDir()
	s, err := CreateFlowStore(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]*npy.Array{
		"shape": {Shape: []int{2, 3, 2}, F32: make([]float32, 12)},
		"dtype": {Shape: []int{2, 2, 3}, U8: make([]uint8, 12)},
	} {
		if err := npy.Write(s.path(0, 1), a); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(0, 1); err == nil || !strings.Contains(err.Error(), "00000_00001.npy") {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
	// A file far larger than a field is refused before it is read.
	if err := os.WriteFile(s.path(0, 1), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(0, 1); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("oversized file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, FlowManifestFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFlowStore(dir, m); err == nil || !strings.Contains(err.Error(), FlowManifestFile) {
		t.Errorf("corrupt manifest: %v", err)
	}
}

// A folder that holds anything but a flow store is refused before anything
// in it is removed; an earlier store, even with the temporary of a write
// that was killed, is replaced.
func TestCreateFlowStoreRefusesAForeignFolder(t *testing.T) {
	m, _ := NewFlowManifest(frameFiles(t, 2), "dis", 3, 2)
	dir := t.TempDir()
	keep := filepath.Join(dir, "thesis.tex")
	if err := os.WriteFile(keep, []byte("years of work"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateFlowStore(dir, m); err == nil || !strings.Contains(err.Error(), "thesis.tex") {
		t.Errorf("foreign folder: %v, want a refusal naming thesis.tex", err)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "years of work" {
		t.Fatalf("the foreign file was touched: %q, %v", b, err)
	}
	store := filepath.Join(t.TempDir(), "flows")
	s, err := CreateFlowStore(store, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(0, 1, &FlowField{W: 3, H: 2, U: make([]float32, 6), V: make([]float32, 6)}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, ".00001_00000.npy.tmp123"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateFlowStore(store, m); err != nil {
		t.Fatalf("an earlier store was not replaced: %v", err)
	}
	if ents, _ := os.ReadDir(store); len(ents) != 1 || ents[0].Name() != FlowManifestFile {
		t.Errorf("after replacing: %v, want only %s", ents, FlowManifestFile)
	}
}

func TestOwnFlowFile(t *testing.T) {
	for rel, want := range map[string]bool{
		"00001_00002.npy": true, "flows.json": true, ".00001_00002.npy.tmp123": true, ".flows.json.tmp7": true,
		".00001_00002.npy": false, "00001_00002.npy.tmp1": false, "0001_0002.npy": false, "notes.txt": false,
	} {
		if got := ownFlowFile(rel, false); got != want {
			t.Errorf("%s: %v, want %v", rel, got, want)
		}
	}
	if ownFlowFile("sub", true) {
		t.Error("a folder inside a store was accepted")
	}
}
