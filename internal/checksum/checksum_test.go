package checksum

import (
	"os"
	"path/filepath"
	"testing"
)

// The CRC-32C check value of "123456789" is 0xE3069283 (RFC 3720, B.4).
func TestFileCheckValue(t *testing.T) {
	p := filepath.Join(t.TempDir(), "check")
	if err := os.WriteFile(p, []byte("123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	crc, n, err := File(p)
	if err != nil || crc != 0xE3069283 || n != 9 {
		t.Errorf("File = %08x, %d, %v; want e3069283, 9, nil", crc, n, err)
	}
	if _, _, err := File(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing file gave no error")
	}
}
