package dataset

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
)

func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		writeFile(t, filepath.Join(dir, n), []byte("x"))
	}
}

func TestListFramesOrdering(t *testing.T) {
	dir := t.TempDir()
	// Lexical order would put _10 before _2; FBMS names carry the number last.
	touch(t, dir, "cars1_10.jpg", "cars1_2.jpg", "cars1_1.jpg", "cars1_3.jpg", "cars1_4.jpg",
		"cars1_5.jpg", "cars1_6.jpg", "cars1_7.jpg", "cars1_8.jpg", "cars1_9.jpg", "notes.txt", ".hidden.jpg")
	os.MkdirAll(filepath.Join(dir, "GroundTruth"), 0o755)
	touch(t, filepath.Join(dir, "GroundTruth"), "cars1_11_gt.ppm")
	got, err := ListFrames(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, filepath.Base(p))
	}
	want := []string{"cars1_1.jpg", "cars1_2.jpg", "cars1_3.jpg", "cars1_4.jpg", "cars1_5.jpg",
		"cars1_6.jpg", "cars1_7.jpg", "cars1_8.jpg", "cars1_9.jpg", "cars1_10.jpg"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("got %v", names)
	}
	if got[0] != filepath.Join(dir, "cars1_1.jpg") {
		t.Fatalf("path %s", got[0])
	}
}

func TestListFramesErrors(t *testing.T) {
	cases := []struct {
		files []string
		want  string
	}{
		{nil, "no image files"},
		{[]string{"a.txt"}, "no image files"},
		{[]string{"s_0001.jpg", "s_0002.jpg", "s_0005.jpg"}, "frame number 3..4 missing between s_0002.jpg and s_0005.jpg"},
		{[]string{"s_0001.jpg", "s_0003.png"}, "frame number 2 missing between s_0001.jpg and s_0003.png"},
		{[]string{"s_0001.jpg", "s_0001.png"}, "s_0001.jpg and s_0001.png have the same frame number 1"},
		{[]string{"s_0001.jpg", "cover.jpg"}, "image cover.jpg has no frame number"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		touch(t, dir, c.files...)
		_, err := ListFrames(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%v: got %v, want %q", c.files, err, c.want)
		}
	}
	if _, err := ListFrames(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("no error for a missing folder")
	}
}

func TestFrameNumber(t *testing.T) {
	for name, want := range map[string]int{"cars1_0012.jpg": 12, "00000.png": 0, "cars1_01_gt.ppm": 1, "tennis467.jpg": 467, "a/b7/c.jpg": -1} {
		n, ok := FrameNumber(name)
		if (want < 0) == ok || (ok && n != want) {
			t.Errorf("%s: %d %v", name, n, ok)
		}
	}
}

func TestCheckSameSize(t *testing.T) {
	dir := t.TempDir()
	testutil.WritePNG(t, filepath.Join(dir, "a_1.png"), image.NewGray(image.Rect(0, 0, 4, 3)))
	if err := WritePPM(filepath.Join(dir, "a_2.ppm"), image.NewRGBA(image.Rect(0, 0, 4, 3))); err != nil {
		t.Fatal(err)
	}
	testutil.WritePNG(t, filepath.Join(dir, "a_3.png"), image.NewGray(image.Rect(0, 0, 4, 2)))
	paths := []string{filepath.Join(dir, "a_1.png"), filepath.Join(dir, "a_2.ppm")}
	if w, h, err := CheckSameSize(paths); err != nil || w != 4 || h != 3 {
		t.Fatalf("%d %d %v", w, h, err)
	}
	_, _, err := CheckSameSize(append(paths, filepath.Join(dir, "a_3.png")))
	if err == nil || !strings.Contains(err.Error(), "a_3.png is 4x2 but") || !strings.Contains(err.Error(), "a_1.png is 4x3") {
		t.Fatalf("got %v", err)
	}
}

func TestReadImageErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bad.jpg"), []byte("not an image"))
	if _, err := ReadImage(filepath.Join(dir, "bad.jpg")); err == nil || !strings.Contains(err.Error(), "bad.jpg: cannot decode image") {
		t.Fatalf("got %v", err)
	}
	writeFile(t, filepath.Join(dir, "bad.ppm"), []byte("P6\n2 2\n255\n\x00"))
	if _, err := ReadImage(filepath.Join(dir, "bad.ppm")); err == nil || !strings.Contains(err.Error(), "bad.ppm: truncated pixel data") {
		t.Fatalf("got %v", err)
	}
}

func TestReadDAVISAnnotationsSynthetic(t *testing.T) {
	dir := t.TempDir()
	for k := 0; k < 3; k++ {
		m := image.NewGray(image.Rect(0, 0, 4, 2))
		m.Pix = []uint8{0, 255, 127, 128, 0, 0, 0, uint8(k * 100)}
		testutil.WritePNG(t, filepath.Join(dir, []string{"00000.png", "00001.png", "00002.png"}[k]), m)
	}
	writeFile(t, filepath.Join(dir, "readme.txt"), []byte("x"))
	gt, err := ReadDAVISAnnotations(dir)
	if err != nil {
		t.Fatal(err)
	}
	if gt.TotalFrames != 3 || len(gt.Frames) != 3 || !reflect.DeepEqual(gt.Colors, []int{0, 255}) ||
		!reflect.DeepEqual(gt.Penalty, [][]float64{{0, 1}, {1, 0}}) {
		t.Fatalf("%+v", gt)
	}
	for k, lf := range gt.Frames {
		want := []int{0, 1, 0, 1, 0, 0, 0, 0}
		if k == 2 {
			want[7] = 1 // grey 200 ≥ 128
		}
		if lf.Frame != k || !reflect.DeepEqual(lf.Region, want) || lf.Prob[0] != 1 || lf.Width != 4 || lf.Height != 2 {
			t.Errorf("frame %d: %+v", k, lf)
		}
	}
	// Paletted masks: any non-zero index is object.
	pal := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.Black, color.RGBA{128, 0, 0, 255}})
	pal.Pix = []uint8{0, 1}
	d2 := t.TempDir()
	testutil.WritePNG(t, filepath.Join(d2, "00000.png"), pal)
	gt, err = ReadDAVISAnnotations(d2)
	if err != nil || !reflect.DeepEqual(gt.Frames[0].Region, []int{0, 1}) {
		t.Fatalf("%v %v", gt, err)
	}
	// Masks of different sizes.
	testutil.WritePNG(t, filepath.Join(d2, "00001.png"), image.NewGray(image.Rect(0, 0, 3, 1)))
	if _, err := ReadDAVISAnnotations(d2); err == nil || !strings.Contains(err.Error(), "00001.png is 3x1 but") {
		t.Fatalf("got %v", err)
	}
}

func TestDAVISBlackswan(t *testing.T) {
	root := testutil.DAVISDev(t)
	frames, ann := DAVISPaths(root, "blackswan")
	paths, err := ListFrames(frames)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 50 || filepath.Base(paths[0]) != "00000.jpg" || filepath.Base(paths[49]) != "00049.jpg" {
		t.Fatalf("%d frames, first %s", len(paths), paths[0])
	}
	if w, h, err := CheckSameSize(paths); err != nil || w != 854 || h != 480 {
		t.Fatalf("%dx%d %v", w, h, err)
	}
	gt, err := LoadGroundTruth(ann)
	if err != nil {
		t.Fatal(err)
	}
	if gt.TotalFrames != 50 || len(gt.Frames) != 50 {
		t.Fatalf("%d frames", len(gt.Frames))
	}
	for _, lf := range gt.Frames {
		if lf.Width != 854 || lf.Height != 480 {
			t.Fatalf("frame %d is %dx%d", lf.Frame, lf.Width, lf.Height)
		}
		obj := 0
		for _, r := range lf.Region {
			obj += r
		}
		// The swan covers a few percent of the frame in every frame.
		if f := float64(obj) / float64(len(lf.Region)); f < 0.01 || f > 0.3 {
			t.Fatalf("frame %d: object fraction %.3f", lf.Frame, f)
		}
	}
	// The frame folder maps to its annotations; the root lists the sequences.
	gt2, err := LoadGroundTruth(frames)
	if err != nil || len(gt2.Frames) != 50 {
		t.Fatalf("via frames dir: %v", err)
	}
	seqs, err := FindSequences(root)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]SequenceInfo{}
	for _, s := range seqs {
		names[s.Name] = s
	}
	for _, n := range testutil.DAVISSequences {
		if s, ok := names[n]; !ok || s.GTPath == "" {
			t.Errorf("sequence %s: %+v", n, s)
		}
	}
	if names["blackswan"].FramesDir != frames || names["blackswan"].GTPath != ann {
		t.Errorf("%+v", names["blackswan"])
	}
}
