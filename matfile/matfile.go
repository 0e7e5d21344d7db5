// Package matfile reads the subset of the MATLAB 5 (level 5) MAT-file format
// that the BSDS-500 ground truth uses ("MAT-File Format", The MathWorks,
// R2019b, chapter 1):
//
//   - a 128-byte header: 116 bytes of text, 8 bytes subsystem offset, the
//     version 0x0100 and the endian indicator "IM" (little endian; "MI" is
//     big endian and is read as well);
//   - data elements, each an 8-byte tag (uint32 type, uint32 byte count)
//     followed by its data padded to a multiple of 8 bytes, or a small data
//     element (byte count < 4 in the upper 16 bits of the first word, the
//     data in the second word);
//   - miCOMPRESSED (15): a zlib stream holding one more data element;
//   - miMATRIX (14): array flags (class, logical/complex bits), dimensions,
//     name, then the class's data: the real part of a numeric array (stored
//     in any numeric element type, e.g. a uint16 array as miUINT8 when its
//     values fit), the cells of a cell array, or the field-name length,
//     field names and per element (column-major) per field one miMATRIX of
//     a struct array.
//
// Complex, sparse, char-as-data, object and function arrays are refused
// with an error. Every size read from the file is checked against the bytes
// that remain (and decompressed data against a fixed limit) before memory is
// allocated, so a damaged file gives an error naming the file and the byte
// offset, never a panic or an unbounded allocation.
package matfile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Element data types (miXXX).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
)

// Class is the MATLAB array class (mxXXX_CLASS).
type Class uint8

// Array classes.
const (
	ClassCell   Class = 1
	ClassStruct Class = 2
	ClassObject Class = 3
	ClassChar   Class = 4
	ClassSparse Class = 5
	ClassDouble Class = 6
	ClassSingle Class = 7
	ClassInt8   Class = 8
	ClassUint8  Class = 9
	ClassInt16  Class = 10
	ClassUint16 Class = 11
	ClassInt32  Class = 12
	ClassUint32 Class = 13
	ClassInt64  Class = 14
	ClassUint64 Class = 15
)

var classNames = map[Class]string{
	ClassCell: "cell", ClassStruct: "struct", ClassObject: "object", ClassChar: "char",
	ClassSparse: "sparse", ClassDouble: "double", ClassSingle: "single", ClassInt8: "int8",
	ClassUint8: "uint8", ClassInt16: "int16", ClassUint16: "uint16", ClassInt32: "int32",
	ClassUint32: "uint32", ClassInt64: "int64", ClassUint64: "uint64",
}

func (c Class) String() string {
	if s, ok := classNames[c]; ok {
		return s
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Numeric reports whether c is a numeric (or logical) class.
func (c Class) Numeric() bool { return c >= ClassDouble && c <= ClassUint64 }

// Array is one MATLAB array. Dims are MATLAB's (rows, columns, ...); data
// are column-major. Exactly one of Data (numeric and logical classes, values
// converted to float64, exact for every integer class up to 32 bits), Cells
// (cell arrays, one per element) and Fields/Elems (struct arrays: Elems[i][f]
// is field Fields[f] of element i) is used.
type Array struct {
	Name    string
	Class   Class
	Logical bool
	Dims    []int
	Data    []float64
	Cells   []*Array
	Fields  []string
	Elems   [][]*Array
}

// Len is the number of elements, the product of Dims.
func (a *Array) Len() int {
	n := 1
	for _, d := range a.Dims {
		n *= d
	}
	return n
}

// Field returns field name of struct element i, or nil.
func (a *Array) Field(i int, name string) *Array {
	if a.Class != ClassStruct || i < 0 || i >= len(a.Elems) {
		return nil
	}
	for f, n := range a.Fields {
		if n == name {
			return a.Elems[i][f]
		}
	}
	return nil
}

// Limits bounding what a file may make the reader allocate.
const (
	// MaxDecompressed is the largest size of one decompressed element.
	MaxDecompressed = 256 << 20
	// MaxElements bounds the element count of one array.
	MaxElements = 64 << 20
	maxDepth    = 16
)

// Error is a malformed-file error: the file, the byte offset of the element
// at fault (in the file; for data inside a compressed element also the offset
// in the decompressed stream) and what is wrong.
type Error struct {
	File   string
	Offset int64
	Inner  int64 // offset inside the decompressed stream; −1 when none
	Msg    string
}

func (e *Error) Error() string {
	if e.Inner >= 0 {
		return fmt.Sprintf("%s: byte %d (compressed element), offset %d after decompression: %s", e.File, e.Offset, e.Inner, e.Msg)
	}
	return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, e.Msg)
}

// ReadFile reads every top-level variable of the MAT-file at path.
func ReadFile(path string) ([]*Array, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse reads every top-level variable of a MAT-file held in data; name is
// used in errors.
func Parse(data []byte, name string) ([]*Array, error) {
	if len(data) < 128 {
		return nil, &Error{File: name, Offset: 0, Inner: -1, Msg: fmt.Sprintf("%d bytes: too short for a MAT-file header (128 bytes)", len(data))}
	}
	if !strings.HasPrefix(string(data[:10]), "MATLAB 5.0") {
		return nil, &Error{File: name, Offset: 0, Inner: -1, Msg: "not a MATLAB 5.0 MAT-file (header text does not start with \"MATLAB 5.0\")"}
	}
	var bo binary.ByteOrder
	switch string(data[126:128]) {
	case "IM":
		bo = binary.LittleEndian
	case "MI":
		bo = binary.BigEndian
	default:
		return nil, &Error{File: name, Offset: 126, Inner: -1, Msg: fmt.Sprintf("bad endian indicator %q", data[126:128])}
	}
	if v := bo.Uint16(data[124:126]); v != 0x0100 {
		return nil, &Error{File: name, Offset: 124, Inner: -1, Msg: fmt.Sprintf("unsupported version 0x%04x (want 0x0100)", v)}
	}
	r := &reader{file: name, bo: bo, data: data, pos: 128, inner: -1}
	var out []*Array
	for r.pos < len(r.data) {
		a, err := r.topElement()
		if err != nil {
			return nil, err
		}
		if a != nil {
			out = append(out, a)
		}
	}
	return out, nil
}

// reader walks data elements of one byte stream: the file, or the content of
// one compressed element (then base is the compressed element's file offset).
type reader struct {
	file  string
	bo    binary.ByteOrder
	data  []byte
	pos   int
	base  int64 // file offset of the compressed element (inner ≥ 0)
	inner int64 // −1: data is the file itself
	depth int
}

func (r *reader) errAt(at int, format string, args ...any) error {
	e := &Error{File: r.file, Offset: int64(at), Inner: -1, Msg: fmt.Sprintf(format, args...)}
	if r.inner >= 0 {
		e.Offset, e.Inner = r.base, int64(at)
	}
	return e
}

// tag reads one element tag at r.pos; it returns the type, the data bytes
// (a sub-slice, bounds checked) and advances r.pos past data and padding.
func (r *reader) tag() (typ uint32, body []byte, at int, err error) {
	at = r.pos
	if len(r.data)-r.pos < 8 {
		return 0, nil, at, r.errAt(at, "truncated: %d bytes left, a data element tag needs 8", len(r.data)-r.pos)
	}
	w0 := r.bo.Uint32(r.data[r.pos:])
	if w0>>16 != 0 { // small data element
		typ, n := w0&0xffff, int(w0>>16)
		if n > 4 {
			return 0, nil, at, r.errAt(at, "small data element claims %d bytes (at most 4)", n)
		}
		body = r.data[r.pos+4 : r.pos+4+n]
		r.pos += 8
		return typ, body, at, nil
	}
	n := uint64(r.bo.Uint32(r.data[r.pos+4:]))
	left := uint64(len(r.data) - r.pos - 8)
	if n > left {
		return 0, nil, at, r.errAt(at, "truncated: element of type %d claims %d bytes but only %d remain", w0, n, left)
	}
	body = r.data[r.pos+8 : r.pos+8+int(n)]
	adv := 8 + int(n)
	if w0 != miCOMPRESSED { // compressed elements are not padded
		adv = 8 + int((n+7)/8*8)
	}
	if adv > len(r.data)-r.pos {
		adv = len(r.data) - r.pos // missing final padding is tolerated
	}
	r.pos += adv
	return w0, body, at, nil
}

func (r *reader) topElement() (*Array, error) {
	typ, body, at, err := r.tag()
	if err != nil {
		return nil, err
	}
	switch typ {
	case miCOMPRESSED:
		if r.inner >= 0 {
			return nil, r.errAt(at, "nested compressed element")
		}
		zr, err := zlib.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, r.errAt(at, "compressed element: %v", err)
		}
		dec, err := io.ReadAll(io.LimitReader(zr, MaxDecompressed+1))
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, r.errAt(at, "compressed element: truncated zlib stream")
			}
			return nil, r.errAt(at, "compressed element: %v", err)
		}
		if len(dec) > MaxDecompressed {
			return nil, r.errAt(at, "compressed element decompresses to more than %d bytes", MaxDecompressed)
		}
		sub := &reader{file: r.file, bo: r.bo, data: dec, base: int64(at), inner: 0}
		a, err := sub.topElement()
		if err != nil {
			return nil, err
		}
		return a, nil
	case miMATRIX:
		return r.matrix(body, at)
	default:
		return nil, r.errAt(at, "top-level element of type %d is not a matrix (14) or compressed element (15)", typ)
	}
}

// matrix parses the body of a miMATRIX element that starts (tag) at at.
func (r *reader) matrix(body []byte, at int) (*Array, error) {
	if len(body) == 0 { // empty array placeholder (e.g. an unset struct field)
		return &Array{Class: ClassDouble, Dims: []int{0, 0}}, nil
	}
	if r.depth >= maxDepth {
		return nil, r.errAt(at, "arrays nested deeper than %d levels", maxDepth)
	}
	// sub-reader over the body, offsets kept relative to the stream
	start := at + 8
	sub := &reader{file: r.file, bo: r.bo, data: r.data[:start+len(body)], pos: start, base: r.base, inner: r.inner, depth: r.depth + 1}
	typ, fl, fat, err := sub.tag()
	if err != nil {
		return nil, err
	}
	if typ != miUINT32 || len(fl) != 8 {
		return nil, sub.errAt(fat, "array flags: want an 8-byte uint32 element, got type %d with %d bytes", typ, len(fl))
	}
	flags := r.bo.Uint32(fl)
	a := &Array{Class: Class(flags & 0xff), Logical: flags&0x200 != 0}
	if flags&0x800 != 0 {
		return nil, sub.errAt(fat, "complex arrays are not supported")
	}
	typ, dm, dat, err := sub.tag()
	if err != nil {
		return nil, err
	}
	if typ != miINT32 || len(dm) < 8 || len(dm)%4 != 0 {
		return nil, sub.errAt(dat, "dimensions: want at least two int32 values, got type %d with %d bytes", typ, len(dm))
	}
	total := 1
	for i := 0; i < len(dm); i += 4 {
		d := int32(r.bo.Uint32(dm[i:]))
		if d < 0 {
			return nil, sub.errAt(dat, "negative dimension %d", d)
		}
		a.Dims = append(a.Dims, int(d))
		if d > 0 && total > MaxElements/int(d) {
			return nil, sub.errAt(dat, "array of more than %d elements", MaxElements)
		}
		total *= int(d)
	}
	typ, nm, nat, err := sub.tag()
	if err != nil {
		return nil, err
	}
	if typ != miINT8 && typ != miUINT8 && typ != miUTF8 {
		return nil, sub.errAt(nat, "array name: want an int8 element, got type %d", typ)
	}
	a.Name = string(nm)
	switch {
	case a.Class == ClassCell:
		a.Cells = make([]*Array, 0, min(total, len(body)/8))
		for i := 0; i < total; i++ {
			c, err := sub.child()
			if err != nil {
				return nil, err
			}
			a.Cells = append(a.Cells, c)
		}
	case a.Class == ClassStruct:
		typ, fl, lat, err := sub.tag()
		if err != nil {
			return nil, err
		}
		if typ != miINT32 || len(fl) != 4 {
			return nil, sub.errAt(lat, "struct field-name length: want one int32, got type %d with %d bytes", typ, len(fl))
		}
		fn := int(int32(r.bo.Uint32(fl)))
		if fn <= 0 || fn > 64 {
			return nil, sub.errAt(lat, "struct field-name length %d out of range 1..64", fn)
		}
		typ, names, nat, err := sub.tag()
		if err != nil {
			return nil, err
		}
		if typ != miINT8 || len(names)%fn != 0 {
			return nil, sub.errAt(nat, "struct field names: want int8 data, a multiple of %d bytes, got type %d with %d bytes", fn, typ, len(names))
		}
		for i := 0; i < len(names); i += fn {
			a.Fields = append(a.Fields, strings.TrimRight(string(names[i:i+fn]), "\x00"))
		}
		nf := len(a.Fields)
		if nf > 0 && total > len(body)/(8*nf) {
			return nil, sub.errAt(nat, "struct of %d elements × %d fields does not fit in %d bytes", total, nf, len(body))
		}
		for i := 0; i < total; i++ {
			row := make([]*Array, nf)
			for f := range row {
				if row[f], err = sub.child(); err != nil {
					return nil, err
				}
			}
			a.Elems = append(a.Elems, row)
		}
	case a.Class.Numeric():
		typ, re, rat, err := sub.tag()
		if err != nil {
			return nil, err
		}
		if a.Data, err = sub.numbers(typ, re, rat, total); err != nil {
			return nil, err
		}
	default:
		return nil, sub.errAt(at, "array %q: class %v is not supported (cell, struct and numeric arrays are)", a.Name, a.Class)
	}
	return a, nil
}

// child reads one nested miMATRIX element.
func (r *reader) child() (*Array, error) {
	typ, body, at, err := r.tag()
	if err != nil {
		return nil, err
	}
	if typ != miMATRIX {
		return nil, r.errAt(at, "want a matrix element (14), got type %d", typ)
	}
	return r.matrix(body, at)
}

// numbers converts numeric element data of type typ to want float64 values.
func (r *reader) numbers(typ uint32, b []byte, at, want int) ([]float64, error) {
	size := map[uint32]int{miINT8: 1, miUINT8: 1, miINT16: 2, miUINT16: 2, miINT32: 4, miUINT32: 4,
		miSINGLE: 4, miDOUBLE: 8, miINT64: 8, miUINT64: 8}[typ]
	if size == 0 {
		return nil, r.errAt(at, "numeric data: element type %d is not numeric", typ)
	}
	if len(b) != want*size {
		return nil, r.errAt(at, "numeric data: %d bytes of type %d hold %d values, the dimensions need %d", len(b), typ, len(b)/size, want)
	}
	out := make([]float64, want)
	bo := r.bo
	for i := range out {
		p := b[i*size:]
		switch typ {
		case miINT8:
			out[i] = float64(int8(p[0]))
		case miUINT8:
			out[i] = float64(p[0])
		case miINT16:
			out[i] = float64(int16(bo.Uint16(p)))
		case miUINT16:
			out[i] = float64(bo.Uint16(p))
		case miINT32:
			out[i] = float64(int32(bo.Uint32(p)))
		case miUINT32:
			out[i] = float64(bo.Uint32(p))
		case miSINGLE:
			out[i] = float64(math.Float32frombits(bo.Uint32(p)))
		case miDOUBLE:
			out[i] = math.Float64frombits(bo.Uint64(p))
		case miINT64:
			out[i] = float64(int64(bo.Uint64(p)))
		case miUINT64:
			out[i] = float64(bo.Uint64(p))
		}
	}
	return out, nil
}
