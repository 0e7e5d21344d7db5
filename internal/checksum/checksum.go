// Package checksum computes the CRC-32C (Castagnoli) of files: the content
// fingerprint by which the pipeline's stage stamps and the tracker's flow
// store recognise inputs copied again with new times and the same bytes.
// Not a cryptographic hash: it detects changes, not tampering.
package checksum

import (
	"hash/crc32"
	"io"
	"os"
)

var table = crc32.MakeTable(crc32.Castagnoli)

// File returns the CRC-32C of the bytes of the file at path and how many
// bytes it read.
func File(path string) (crc uint32, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	h := crc32.New(table)
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, 0, err
	}
	return h.Sum32(), n, nil
}
