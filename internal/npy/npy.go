// Package npy reads and writes NumPy .npy files (format 1.0 written;
// 1.0, 2.0 and 3.0 read) of C-order int16, float32 and uint8 arrays: the
// label, weight and uncertainty maps of prepared training sets and of
// image decompositions.
package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
)

// The .npy format, version 1.0 (NEP 1): the 6-byte magic "\x93NUMPY", the
// version bytes 1 0, a little-endian uint16 header length, and a header that
// is a Python dict literal {'descr': ..., 'fortran_order': False, 'shape': (...), }
// padded with spaces and terminated by '\n' so that the data starts at a
// multiple of 64 bytes. Data follow in C order, little endian.

const magic = "\x93NUMPY"

// Array is an n-dimensional array read from or written to .npy. Exactly one
// of the data slices is set, matching Descr ('<i2', '<f4' or '|u1').
type Array struct {
	Shape []int
	Int16 []int16
	F32   []float32
	U8    []uint8
}

// Descr returns the NumPy dtype string of the array.
func (a *Array) Descr() string {
	switch {
	case a.Int16 != nil:
		return "<i2"
	case a.F32 != nil:
		return "<f4"
	default:
		return "|u1"
	}
}

func (a *Array) size() int {
	n := 1
	for _, s := range a.Shape {
		n *= s
	}
	return n
}

// Encode writes a as .npy (format 1.0).
func Encode(w io.Writer, a *Array) error {
	n := a.size()
	var got int
	switch a.Descr() {
	case "<i2":
		got = len(a.Int16)
	case "<f4":
		got = len(a.F32)
	default:
		got = len(a.U8)
	}
	if got != n {
		return fmt.Errorf("npy: shape %v needs %d values, have %d", a.Shape, n, got)
	}
	dims := make([]string, len(a.Shape))
	for i, s := range a.Shape {
		dims[i] = strconv.Itoa(s)
	}
	shape := strings.Join(dims, ", ")
	if len(a.Shape) == 1 {
		shape += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", a.Descr(), shape)
	total := len(magic) + 2 + 2 + len(h) + 1
	h += strings.Repeat(" ", (64-total%64)%64) + "\n"
	var hdr bytes.Buffer
	hdr.WriteString(magic)
	hdr.Write([]byte{1, 0})
	binary.Write(&hdr, binary.LittleEndian, uint16(len(h)))
	hdr.WriteString(h)
	if _, err := w.Write(hdr.Bytes()); err != nil {
		return err
	}
	switch a.Descr() {
	case "<i2":
		return binary.Write(w, binary.LittleEndian, a.Int16)
	case "<f4":
		return binary.Write(w, binary.LittleEndian, a.F32)
	default:
		_, err := w.Write(a.U8)
		return err
	}
}

// Write writes a to path atomically.
func Write(path string, a *Array) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Encode(w, a) })
}

var (
	descrRe = regexp.MustCompile(`'descr':\s*'([^']*)'`)
	orderRe = regexp.MustCompile(`'fortran_order':\s*(True|False)`)
	shapeRe = regexp.MustCompile(`'shape':\s*\(([^)]*)\)`)
)

// maxElems bounds what a header may announce, so a corrupt file cannot
// make the reader allocate unbounded memory.
const maxElems = 1 << 30

// Read reads a .npy file written by Encode or by NumPy (C order, dtypes
// <i2, <f4, |u1 / <u1 / u1).
func Read(path string) (*Array, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(data, path)
}

// Decode parses .npy bytes; name is used in errors.
func Decode(data []byte, name string) (*Array, error) {
	a, n, item, off, err := decodeHeader(data, name)
	if err != nil {
		return nil, err
	}
	body := data[off:]
	if len(body) != n*item {
		return nil, fileerr.New(name, 0, "npy: data has %d bytes, shape %v needs %d", len(body), a.Shape, n*item)
	}
	switch item {
	case 2:
		a.Int16 = make([]int16, n)
		for i := range a.Int16 {
			a.Int16[i] = int16(binary.LittleEndian.Uint16(body[2*i:]))
		}
	case 4:
		a.F32 = make([]float32, n)
		for i := range a.F32 {
			a.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
		}
	default:
		a.U8 = append([]uint8{}, body...)
	}
	return a, nil
}

// decodeHeader parses the header at the start of data: the array (its
// Shape set), its element count, the bytes per element and the offset of
// the data.
func decodeHeader(data []byte, name string) (a *Array, n, item, off int, err error) {
	bad := func(format string, args ...any) (*Array, int, int, int, error) {
		return nil, 0, 0, 0, fileerr.New(name, 0, "npy: "+format, args...)
	}
	if len(data) < 10 || string(data[:6]) != magic {
		return bad("not a .npy file (bad magic)")
	}
	var hl int
	switch data[6] {
	case 1:
		hl, off = int(binary.LittleEndian.Uint16(data[8:10])), 10
	case 2, 3:
		if len(data) < 12 {
			return bad("truncated header")
		}
		hl, off = int(binary.LittleEndian.Uint32(data[8:12])), 12
	default:
		return bad("unsupported format version %d.%d", data[6], data[7])
	}
	if hl < 0 || off+hl > len(data) {
		return bad("truncated header")
	}
	h := string(data[off : off+hl])
	d, o, s := descrRe.FindStringSubmatch(h), orderRe.FindStringSubmatch(h), shapeRe.FindStringSubmatch(h)
	if d == nil || o == nil || s == nil {
		return bad("malformed header %q", strings.TrimSpace(h))
	}
	if o[1] == "True" {
		return bad("Fortran-order arrays are not supported")
	}
	a = &Array{}
	n = 1
	for _, f := range strings.Split(s[1], ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return bad("bad shape %q", s[1])
		}
		if v > 0 && n > maxElems/v {
			return bad("array too large: shape %q", s[1])
		}
		n *= v
		a.Shape = append(a.Shape, v)
	}
	switch d[1] {
	case "<i2":
		item = 2
	case "<f4":
		item = 4
	case "|u1", "<u1", "u1", "|b1":
		item = 1
	default:
		return bad("unsupported dtype %q", d[1])
	}
	return a, n, item, off + hl, nil
}

// ReadShape returns the shape of the .npy file path, reading only its
// header, and checks that the file holds all the data the header
// announces.
func ReadShape(path string) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	head := make([]byte, 12)
	k, _ := io.ReadFull(f, head)
	head = head[:k]
	if k >= 10 {
		hl := int(binary.LittleEndian.Uint16(head[8:10])) + 10
		if head[6] >= 2 && k == 12 {
			hl = int(binary.LittleEndian.Uint32(head[8:12])) + 12
		}
		if hl > k && int64(hl) <= st.Size() && hl <= 1<<20 {
			head = append(head, make([]byte, hl-k)...)
			if _, err := io.ReadFull(f, head[k:]); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	a, n, item, off, err := decodeHeader(head, path)
	if err != nil {
		return nil, err
	}
	if st.Size() != int64(off)+int64(n)*int64(item) {
		return nil, fileerr.New(path, 0, "npy: file has %d bytes, shape %v needs %d", st.Size(), a.Shape, int64(off)+int64(n)*int64(item))
	}
	return a.Shape, nil
}
