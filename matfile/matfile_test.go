package matfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
)

// handBuilt is a BSDS-like variable: a 1×2 cell of 1×1 structs with a
// uint16 label map and a logical boundary map, 2×3 each.
func handBuilt() []*Array {
	ann := func(seg []float64) *Array {
		return &Array{Class: ClassStruct, Dims: []int{1, 1}, Fields: []string{"Segmentation", "Boundaries"},
			Elems: [][]*Array{{
				{Class: ClassUint16, Dims: []int{2, 3}, Data: seg},
				{Class: ClassUint8, Logical: true, Dims: []int{2, 3}, Data: []float64{0, 1, 1, 0, 0, 1}},
			}}}
	}
	return []*Array{
		{Name: "groundTruth", Class: ClassCell, Dims: []int{1, 2}, Cells: []*Array{ann([]float64{1, 2, 3, 300, 5, 65535}), ann([]float64{1, 1, 1, 1, 2, 2})}},
		{Name: "x", Class: ClassDouble, Dims: []int{1, 3}, Data: []float64{-1.5, 0, 1e300}},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, compress := range []bool{false, true} {
		data, err := Encode(handBuilt(), compress)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(data, "hand.mat")
		if err != nil {
			t.Fatalf("compress=%v: %v", compress, err)
		}
		if !reflect.DeepEqual(got, handBuilt()) {
			t.Fatalf("compress=%v: round trip differs:\n%+v", compress, got)
		}
		if v := got[0].Cells[0].Field(0, "Segmentation").Data[5]; v != 65535 {
			t.Fatalf("uint16 max read as %v", v)
		}
	}
}

// TestSmallElement reads a uint8 array of two values stored as a small data
// element (tag and data in one 8-byte word), as MATLAB writes short data.
func TestSmallElement(t *testing.T) {
	data, _ := Encode([]*Array{{Name: "s", Class: ClassUint8, Dims: []int{1, 2}, Data: []float64{7, 9}}}, false)
	// the data element is the last 16 bytes: tag (type 2, 2 bytes) + 8 padded bytes
	body := data[len(data)-16:]
	small := []byte{2, 0, 2, 0, 7, 9, 0, 0}
	out := append(append([]byte{}, data[:len(data)-16]...), small...)
	// fix the enclosing matrix byte count (at offset 128+4)
	n := uint32(len(out) - 136)
	out[132], out[133], out[134], out[135] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	_ = body
	got, err := Parse(out, "small.mat")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[0].Data, []float64{7, 9}) {
		t.Fatalf("small element read as %v", got[0].Data)
	}
}

func TestBadFiles(t *testing.T) {
	good, _ := Encode(handBuilt(), true)
	plain, _ := Encode(handBuilt(), false)
	wrongType := append([]byte{}, plain...)
	wrongType[128] = 7 // top-level element type miSINGLE
	badDims := append([]byte{}, plain...)
	// first dimension of the cell (after matrix tag 8, flags 16, dims tag 8)
	badDims[128+8+16+8] = 0xff
	badDims[128+8+16+8+3] = 0x7f
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"not mat", []byte(strings.Repeat("x", 200)), "not a MATLAB 5.0"},
		{"truncated header", good[:100], "too short"},
		{"truncated tag", good[:131], "byte 128: truncated"},
		{"truncated compressed", good[:len(good)-40], "truncated: element of type 15"},
		{"truncated plain", plain[:len(plain)-30], "truncated"},
		{"wrong type", wrongType, "byte 128: top-level element of type 7"},
		{"huge dims", badDims, "array of more than"},
	}
	for _, c := range cases {
		_, err := Parse(c.data, "bad.mat")
		var me *Error
		if err == nil || !errors.As(err, &me) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bad.mat: ") {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
	// a damaged zlib stream inside a complete element
	bad := append([]byte{}, good...)
	for i := 140; i < 150; i++ {
		bad[i] ^= 0x5a
	}
	if _, err := Parse(bad, "z.mat"); err == nil || !strings.Contains(err.Error(), "z.mat: byte 128") {
		t.Errorf("damaged zlib: %v", err)
	}
}

// realFiles returns a few BSDS ground-truth files, or skips.
func realFiles(tb testing.TB) []string {
	dir := filepath.Join(testutil.BSDSDev(), "groundTruth", "val")
	files, _ := filepath.Glob(filepath.Join(dir, "*.mat"))
	if len(files) == 0 {
		tb.Skipf("BSDS-500 ground truth not found in %s", dir)
	}
	return files[:3]
}

// TestRealFilesRoundTrip parses real BSDS files, checks the structure, and
// re-encodes and re-parses them to the same arrays.
func TestRealFilesRoundTrip(t *testing.T) {
	for _, f := range realFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		arrs, err := Parse(data, f)
		if err != nil {
			t.Fatal(err)
		}
		gt := arrs[0]
		if gt.Name != "groundTruth" || gt.Class != ClassCell || len(gt.Cells) < 4 || len(gt.Cells) > 9 {
			t.Fatalf("%s: unexpected top level %q %v with %d cells", f, gt.Name, gt.Class, len(gt.Cells))
		}
		seg := gt.Cells[0].Field(0, "Segmentation")
		if seg == nil || seg.Len() != 481*321 || seg.Class != ClassUint16 {
			t.Fatalf("%s: bad Segmentation %+v", f, seg)
		}
		again, err := Encode(arrs, true)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(again, "again")
		if err != nil || !reflect.DeepEqual(back, arrs) {
			t.Fatalf("%s: re-encoded file differs (%v)", f, err)
		}
		// every truncation is an error, never a panic
		for _, n := range []int{129, 200, len(data) / 2, len(data) - 1} {
			if _, err := Parse(data[:n], f); err == nil {
				t.Fatalf("%s truncated to %d bytes parsed without error", f, n)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	good, _ := Encode(handBuilt(), true)
	plain, _ := Encode(handBuilt(), false)
	f.Add(good)
	f.Add(plain)
	f.Add(plain[:len(plain)/2])
	f.Add(good[:len(good)-9])
	dir := filepath.Join(testutil.BSDSDev(), "groundTruth", "val")
	if files, _ := filepath.Glob(filepath.Join(dir, "*.mat")); len(files) > 0 {
		if d, err := os.ReadFile(files[0]); err == nil {
			f.Add(d)
			f.Add(d[:len(d)/3])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		arrs, err := Parse(data, "fuzz.mat")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.mat: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, a := range arrs {
			if a.Class.Numeric() && len(a.Data) != a.Len() {
				t.Fatalf("%d values for dims %v", len(a.Data), a.Dims)
			}
		}
	})
}
