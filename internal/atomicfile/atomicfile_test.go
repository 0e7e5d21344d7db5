package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
