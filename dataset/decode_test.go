package dataset

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
)

// cutAfterFirstScan returns the progressive JPEG b cut before its second
// scan and closed with an end-of-image marker.
func cutAfterFirstScan(t testing.TB, b []byte) []byte {
	t.Helper()
	first := bytes.Index(b, []byte{0xff, 0xda})
	second := bytes.Index(b[first+2:], []byte{0xff, 0xda})
	if first < 0 || second < 0 {
		t.Fatal("fewer than two scans")
	}
	return append(append([]byte(nil), b[:first+2+second]...), 0xff, 0xd9)
}

func TestImageHeaderBoundedByFileSize(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		w, h uint32
		want string
	}{
		{"huge.png", 50000, 50000, "png image of unsupported size 50000x50000"},
		{"big.png", 2000, 2000, "the png header claims 2000x2000 pixels, more than its"},
	} {
		p := filepath.Join(dir, c.name)
		writeFile(t, p, testutil.PNGClaiming(t, c.w, c.h))
		if _, err := ReadImage(p); err == nil || !strings.Contains(err.Error(), p+": "+c.want) {
			t.Errorf("ReadImage %s: %v, want %q", c.name, err, c.want)
		}
		if _, _, err := ImageSize(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ImageSize %s: %v, want %q", c.name, err, c.want)
		}
	}
	// A P5 header of 4096×4096 with 10 bytes of pixels: ImageSize refuses
	// it as well (ReadImage reports the truncated data).
	p := filepath.Join(dir, "short.pgm")
	writeFile(t, p, append([]byte("P5\n4096 4096\n255\n"), make([]byte, 10)...))
	if _, _, err := ImageSize(p); err == nil || !strings.Contains(err.Error(), "the pnm header claims 4096x4096 pixels") {
		t.Errorf("ImageSize short.pgm: %v", err)
	}
	// Real images pass.
	g := image.NewGray(image.Rect(0, 0, 300, 200))
	testutil.WritePNG(t, filepath.Join(dir, "ok.png"), g)
	if w, h, err := ImageSize(filepath.Join(dir, "ok.png")); err != nil || w != 300 || h != 200 {
		t.Errorf("ok.png: %dx%d %v", w, h, err)
	}
}

func TestProgressiveJPEGMustBeComplete(t *testing.T) {
	full, err := os.ReadFile(filepath.Join("testdata", "progressive.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := DecodeImage(full, "progressive.jpg")
	if err != nil || img.Bounds().Dx() != 24 || img.Bounds().Dy() != 16 {
		t.Fatalf("complete progressive JPEG: %v", err)
	}
	cut := cutAfterFirstScan(t, full)
	if _, err := jpeg.Decode(bytes.NewReader(cut)); err != nil {
		t.Fatalf("image/jpeg refuses the cut file itself (%v): the check is not needed", err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "cut.jpg")
	writeFile(t, p, cut)
	if _, err := ReadImage(p); err == nil || !strings.Contains(err.Error(), p+": progressive JPEG incomplete") {
		t.Errorf("cut progressive JPEG: %v", err)
	}
	// Baseline JPEGs are not affected.
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeImage(buf.Bytes(), "baseline.jpg"); err != nil {
		t.Errorf("baseline: %v", err)
	}
}

func TestReadImageFormat(t *testing.T) {
	dir := t.TempDir()
	testutil.WritePNG(t, filepath.Join(dir, "a.png"), image.NewGray(image.Rect(0, 0, 2, 2)))
	if _, err := ReadImageFormat(filepath.Join(dir, "a.png"), "png"); err != nil {
		t.Error(err)
	}
	var buf bytes.Buffer
	jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 8)), nil)
	writeFile(t, filepath.Join(dir, "b.png"), buf.Bytes())
	if _, err := ReadImageFormat(filepath.Join(dir, "b.png"), "png"); err == nil || !strings.Contains(err.Error(), "b.png: a jpeg image, not png") {
		t.Errorf("JPEG named .png: %v", err)
	}
}

// FuzzDecodeImage: no input makes the decoding path panic or allocate for
// more pixels than the file can hold, and what it returns has the size the
// header claims.
func FuzzDecodeImage(f *testing.F) {
	f.Add(testutil.PNGClaiming(f, 50000, 50000))
	f.Add(testutil.PNGClaiming(f, 3, 2))
	var buf bytes.Buffer
	png.Encode(&buf, &image.Paletted{Pix: []uint8{0, 1, 1, 0}, Stride: 2, Rect: image.Rect(0, 0, 2, 2), Palette: color.Palette{color.Black, color.White}})
	f.Add(buf.Bytes())
	buf.Reset()
	jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 9, 7)), nil)
	f.Add(buf.Bytes())
	if b, err := os.ReadFile(filepath.Join("testdata", "progressive.jpg")); err == nil {
		f.Add(b)
		f.Add(cutAfterFirstScan(f, b))
		f.Add(b[:len(b)/2])
	}
	f.Add(append([]byte("P6 1 1 255\n"), 1, 2, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := DecodeImage(data, "fuzz")
		if err != nil {
			return
		}
		b := img.Bounds()
		if int64(b.Dx())*int64(b.Dy()) > 8*1032*int64(len(data)) {
			t.Fatalf("%dx%d pixels from %d bytes", b.Dx(), b.Dy(), len(data))
		}
	})
}
