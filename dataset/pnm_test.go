package dataset

import (
	"bytes"
	"image"
	"image/color"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDecodePNMHandWritten(t *testing.T) {
	// ASCII grey with comments, maxval 10 (raw samples kept).
	p, err := DecodePNM(strings.NewReader("P2\n# a comment\n3 2 # trailing\n10\n0 5 10\n1 2 3\n"), "a.pgm")
	if err != nil {
		t.Fatal(err)
	}
	want := &PNM{Width: 3, Height: 2, Channels: 1, MaxVal: 10, Pix: []uint16{0, 5, 10, 1, 2, 3}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("got %+v", p)
	}
	if g := p.Image().(*image.Gray); g.GrayAt(1, 0).Y != 128 || g.GrayAt(2, 0).Y != 255 {
		t.Fatalf("rescaled grey %v", g.Pix)
	}
	// ASCII colour.
	p, err = DecodePNM(strings.NewReader("P3 2 1 255 255 0 0  1 2 3"), "c.ppm")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Pix, []uint16{255, 0, 0, 1, 2, 3}) || p.Channels != 3 {
		t.Fatalf("got %+v", p)
	}
	// Binary 16-bit grey, big-endian.
	p, err = DecodePNM(bytes.NewReader(append([]byte("P5\n2 1\n65535\n"), 0x01, 0x02, 0xff, 0xff)), "g16.pgm")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Pix, []uint16{0x0102, 0xffff}) {
		t.Fatalf("got %v", p.Pix)
	}
	if g := p.Image().(*image.Gray16); g.Gray16At(0, 0).Y != 0x0102 {
		t.Fatalf("got %v", g.Gray16At(0, 0))
	}
	// Binary colour: colour value R·65536+G·256+B.
	p, err = DecodePNM(bytes.NewReader(append([]byte("P6 1 1 255\n"), 1, 2, 3)), "c.ppm")
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Value(0, 0, 0)<<16 | p.Value(0, 0, 1)<<8 | p.Value(0, 0, 2); c != 66051 {
		t.Fatalf("colour %d", c)
	}
}

func TestDecodePNMErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"", "x.pnm:1: not a netpbm image"},
		{"GIF89a", "x.pnm:1: not a netpbm image"},
		{"P1\n1 1\n1\n", "x.pnm:1: netpbm bitmaps (P1) are not supported"},
		{"P7\n", "x.pnm:1: unsupported netpbm magic number P7"},
		{"P5\n2 x\n255\n", "x.pnm:2: height: \"x\" is not an integer"},
		{"P5\n0 2\n255\n", "x.pnm:2: width 0 out of range"},
		{"P5\n65536 65536\n255\n", "x.pnm:2: image 65536x65536 larger than"},
		{"P5\n2 2\n70000\n", "x.pnm:3: maxval 70000 out of range"},
		{"P5\n2 2\n255\n\x01\x02", "x.pnm: truncated pixel data: 2 of 4 bytes"},
		{"P5\n2 1\n10\n\x01\x0b", "x.pnm: sample 11 at pixel (1,0) exceeds maxval 10"},
		{"P2\n2 2\n10\n1 2\n3\n", "x.pnm:5: unexpected end of file, expected sample"},
		{"P2\n2 1\n10\n1\n11\n", "x.pnm:5: sample 11 out of range [0, 10]"},
		{"P5\n2 1\n255", "x.pnm:3: unexpected end of file, expected pixel data"},
		{"P5\n2 1\n# comment without end", "x.pnm:3: unexpected end of file in a comment"},
	}
	for _, c := range cases {
		_, err := DecodePNM(strings.NewReader(c.src), "x.pnm")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want prefix %q", c.src, err, c.want)
		}
	}
}

func TestPNMWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rgb := image.NewRGBA(image.Rect(0, 0, 5, 3))
	g8 := image.NewGray(image.Rect(0, 0, 5, 3))
	g16 := image.NewGray16(image.Rect(0, 0, 5, 3))
	for i := 0; i < 15; i++ {
		rgb.Set(i%5, i/5, color.RGBA{uint8(17 * i), uint8(255 - i), uint8(i * i), 255})
		g8.Pix[i] = uint8(i * 13)
		g16.SetGray16(i%5, i/5, color.Gray16{Y: uint16(i * 4321)})
	}
	if err := WritePPM(filepath.Join(dir, "a.ppm"), rgb); err != nil {
		t.Fatal(err)
	}
	if err := WritePGM(filepath.Join(dir, "b.pgm"), g8); err != nil {
		t.Fatal(err)
	}
	if err := WritePGM(filepath.Join(dir, "c.pgm"), g16); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]image.Image{"a.ppm": rgb, "b.pgm": g8, "c.pgm": g16} {
		got, err := ReadImage(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: round trip differs: %T", name, got)
		}
		w, h, err := ImageSize(filepath.Join(dir, name))
		if err != nil || w != 5 || h != 3 {
			t.Errorf("%s: size %dx%d %v", name, w, h, err)
		}
	}
	// Raw PNM samples with an unusual maxval survive a write.
	p := &PNM{Width: 2, Height: 1, Channels: 1, MaxVal: 3, Pix: []uint16{3, 1}}
	var buf bytes.Buffer
	if err := EncodePGM(&buf, p); err != nil {
		t.Fatal(err)
	}
	back, err := DecodePNM(&buf, "p.pgm")
	if err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("got %+v, %v", back, err)
	}
}

func FuzzReadPNM(f *testing.F) {
	f.Add([]byte("P2\n# c\n3 2\n10\n0 5 10\n1 2 3\n"))
	f.Add([]byte("P3 2 1 255 255 0 0  1 2 3"))
	f.Add(append([]byte("P5\n2 1\n65535\n"), 1, 2, 255, 255))
	f.Add(append([]byte("P6 1 1 255\n"), 1, 2, 3))
	f.Add([]byte("P5\n60000 60000\n255\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePNM(bytes.NewReader(data), "fuzz.pnm")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.pnm") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		if len(p.Pix) != p.Width*p.Height*p.Channels {
			t.Fatalf("%dx%dx%d with %d samples", p.Width, p.Height, p.Channels, len(p.Pix))
		}
		for _, v := range p.Pix {
			if int(v) > p.MaxVal {
				t.Fatalf("sample %d > maxval %d", v, p.MaxVal)
			}
		}
		// Binary re-encoding reads back the same samples.
		var buf bytes.Buffer
		if p.Channels == 1 {
			err = EncodePGM(&buf, p)
		} else if p.MaxVal <= 255 {
			err = EncodePPM(&buf, p)
		} else {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodePNM(&buf, "again")
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("re-encode differs: %v", err)
		}
		_ = p.Image()
	})
}
