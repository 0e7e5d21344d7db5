package npy

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"
)

func TestRoundTripAndLayout(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, &Array{Shape: []int{2}, Int16: []int16{1, -1}}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// The 58-byte dict makes the header 128 bytes (64-byte aligned), then 2 little-endian int16.
	if len(b) != 132 || string(b[:10]) != "\x93NUMPY\x01\x00\x76\x00" || b[127] != '\n' || !bytes.Equal(b[128:], []byte{1, 0, 0xff, 0xff}) {
		t.Fatalf("layout: %q", b)
	}
	if !bytes.Contains(b, []byte("'shape': (2,)")) {
		t.Fatalf("1-D shape must be written as a tuple: %q", b)
	}
	dir := t.TempDir()
	for _, a := range []*Array{
		{Shape: []int{3, 2}, Int16: []int16{-1, 0, 1, 2, 3, 32767}},
		{Shape: []int{2, 2}, F32: []float32{0.5, 1000, 0, -1}},
		{Shape: []int{1, 3}, U8: []uint8{0, 1, 255}},
	} {
		p := filepath.Join(dir, a.Descr()[1:]+".npy")
		if err := Write(p, a); err != nil {
			t.Fatal(err)
		}
		got, err := Read(p)
		if err != nil || !reflect.DeepEqual(got, a) {
			t.Fatalf("round trip %v: %+v %v", a.Descr(), got, err)
		}
	}
	if _, err := Decode(b[:130], "x.npy"); err == nil {
		t.Fatal("truncated data accepted")
	}
}
