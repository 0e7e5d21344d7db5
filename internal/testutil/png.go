package testutil

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// PNGClaiming returns a valid 1×1 PNG whose header claims w×h pixels (the
// IHDR chunk rewritten with its CRC): a few dozen bytes that a decoder
// without a bound would allocate w·h pixels for.
func PNGClaiming(t testing.TB, w, h uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// signature (8), IHDR length (4), "IHDR" (4), width, height, …, CRC at 29
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// WritePNG encodes img as PNG to path, making path's folder if needed; any
// failure ends the test.
func WritePNG(tb testing.TB, path string, img image.Image) {
	tb.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}
