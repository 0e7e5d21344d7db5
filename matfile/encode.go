package matfile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math"
)

// Encode writes arrays as a little-endian level 5 MAT-file, each variable
// optionally in a miCOMPRESSED element. Numeric data are written as the
// element type of their class (logical as uint8). It is the inverse of Parse
// for the supported subset and exists for tests and fixtures.
func Encode(arrays []*Array, compress bool) ([]byte, error) {
	var buf bytes.Buffer
	hdr := make([]byte, 128)
	copy(hdr, "MATLAB 5.0 MAT-file, written by densify matfile.Encode")
	for i := len("MATLAB 5.0 MAT-file, written by densify matfile.Encode"); i < 116; i++ {
		hdr[i] = ' '
	}
	binary.LittleEndian.PutUint16(hdr[124:], 0x0100)
	copy(hdr[126:], "IM")
	buf.Write(hdr)
	for _, a := range arrays {
		var el bytes.Buffer
		if err := encodeMatrix(&el, a); err != nil {
			return nil, err
		}
		if !compress {
			buf.Write(el.Bytes())
			continue
		}
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(el.Bytes())
		zw.Close()
		writeTag(&buf, miCOMPRESSED, z.Len())
		buf.Write(z.Bytes())
	}
	return buf.Bytes(), nil
}

func writeTag(b *bytes.Buffer, typ uint32, n int) {
	var t [8]byte
	binary.LittleEndian.PutUint32(t[:], typ)
	binary.LittleEndian.PutUint32(t[4:], uint32(n))
	b.Write(t[:])
}

func writeElem(b *bytes.Buffer, typ uint32, data []byte) {
	writeTag(b, typ, len(data))
	b.Write(data)
	for i := len(data); i%8 != 0; i++ {
		b.WriteByte(0)
	}
}

var classElem = map[Class]struct {
	typ  uint32
	size int
}{
	ClassDouble: {miDOUBLE, 8}, ClassSingle: {miSINGLE, 4}, ClassInt8: {miINT8, 1}, ClassUint8: {miUINT8, 1},
	ClassInt16: {miINT16, 2}, ClassUint16: {miUINT16, 2}, ClassInt32: {miINT32, 4}, ClassUint32: {miUINT32, 4},
}

func encodeMatrix(out *bytes.Buffer, a *Array) error {
	var b bytes.Buffer
	flags := make([]byte, 8)
	f := uint32(a.Class)
	if a.Logical {
		f |= 0x200
	}
	binary.LittleEndian.PutUint32(flags, f)
	writeElem(&b, miUINT32, flags)
	dims := make([]byte, 4*len(a.Dims))
	for i, d := range a.Dims {
		binary.LittleEndian.PutUint32(dims[4*i:], uint32(d))
	}
	writeElem(&b, miINT32, dims)
	writeElem(&b, miINT8, []byte(a.Name))
	switch {
	case a.Class == ClassCell:
		for _, c := range a.Cells {
			if err := encodeMatrix(&b, c); err != nil {
				return err
			}
		}
	case a.Class == ClassStruct:
		fl := make([]byte, 4)
		binary.LittleEndian.PutUint32(fl, 32)
		writeElem(&b, miINT32, fl)
		names := make([]byte, 32*len(a.Fields))
		for i, n := range a.Fields {
			copy(names[32*i:32*i+31], n)
		}
		writeElem(&b, miINT8, names)
		for _, row := range a.Elems {
			for _, c := range row {
				if err := encodeMatrix(&b, c); err != nil {
					return err
				}
			}
		}
	default:
		ce, ok := classElem[a.Class]
		if !ok {
			return fmt.Errorf("matfile: cannot encode class %v", a.Class)
		}
		d := make([]byte, ce.size*len(a.Data))
		for i, v := range a.Data {
			p := d[i*ce.size:]
			switch ce.typ {
			case miDOUBLE:
				binary.LittleEndian.PutUint64(p, mathFloat64bits(v))
			case miSINGLE:
				binary.LittleEndian.PutUint32(p, mathFloat32bits(float32(v)))
			case miINT8, miUINT8:
				p[0] = byte(int64(v))
			case miINT16, miUINT16:
				binary.LittleEndian.PutUint16(p, uint16(int64(v)))
			case miINT32, miUINT32:
				binary.LittleEndian.PutUint32(p, uint32(int64(v)))
			}
		}
		writeElem(&b, ce.typ, d)
	}
	writeElem(out, miMATRIX, b.Bytes())
	return nil
}

func mathFloat64bits(v float64) uint64 { return math.Float64bits(v) }
func mathFloat32bits(v float32) uint32 { return math.Float32bits(v) }
