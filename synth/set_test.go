package synth

import (
	"math"
	"os"
	"strings"
	"testing"
)

// Sequence i uses seed + i − 1: a seed whose last sequence would wrap
// around is refused before anything is written.
func TestWriteSetSeedDoesNotWrap(t *testing.T) {
	out := t.TempDir() + "/data"
	p := DefaultParams()
	p.Seed = math.MaxInt64
	_, err := WriteSet(SetOptions{Out: out, Count: 2, Spacing: 8, Params: p}, nil)
	if err == nil || !strings.Contains(err.Error(), "--seed 9223372036854775807 with --count 2") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output written: %v", err)
	}
	p.Seed = math.MaxInt64 - 1
	p.Frames, p.Width, p.Height = 2, 32, 32
	if _, err := WriteSet(SetOptions{Out: out, Count: 2, Spacing: 8, Params: p}, nil); err != nil {
		t.Fatal(err)
	}
}
