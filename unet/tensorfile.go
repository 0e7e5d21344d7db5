package unet

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/densify/densify/internal/atomicfile"
)

// Float32Bytes encodes v as consecutive little-endian IEEE-754 float32 values,
// the data layout of checkpoints and of the trainer's optimiser state.
func Float32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// Float32sFromBytes decodes the len(b)/4 float32 values written by Float32Bytes.
func Float32sFromBytes(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// WriteTensorFile writes, atomically (no partial file on failure), the
// container shared by checkpoints and optimiser states: magic, the
// little-endian uint64 length of header, header, then the data blocks in order.
func WriteTensorFile(path, magic string, header []byte, data [][]byte) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, magic); err != nil {
			return err
		}
		if err := binary.Write(w, binary.LittleEndian, uint64(len(header))); err != nil {
			return err
		}
		if _, err := w.Write(header); err != nil {
			return err
		}
		for _, b := range data {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}
