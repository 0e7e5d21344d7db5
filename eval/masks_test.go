package eval

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

func TestMaskFrame(t *testing.T) {
	for _, c := range []struct {
		name  string
		frame int
		ok    bool
	}{
		{"00000.png", 0, true}, {"00012.png", 12, true}, {"cars1_0001.png", 0, true},
		{"cars1_0020.png", 19, true}, {"cars1_0000.png", 0, false}, {"frame7.png", 7, true},
		{"overlay.png", 0, false}, {"00003_prob.png", 0, false},
	} {
		f, ok := MaskFrame(c.name)
		if ok != c.ok || (ok && f != c.frame) {
			t.Errorf("%s: %d %v, want %d %v", c.name, f, ok, c.frame, c.ok)
		}
	}
}

func TestReadMaskDir(t *testing.T) {
	dir := t.TempDir()
	g := image.NewGray(image.Rect(0, 0, 2, 1))
	g.Pix = []uint8{0, 255}
	testutil.WritePNG(t, filepath.Join(dir, "00000.png"), g)
	c := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	c.Set(0, 0, color.NRGBA{1, 2, 3, 255})
	c.Set(1, 0, color.NRGBA{0, 0, 0, 0})
	testutil.WritePNG(t, filepath.Join(dir, "00002.png"), c)
	p := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.Black, color.White, color.Gray{9}})
	p.Pix = []uint8{2, 1}
	testutil.WritePNG(t, filepath.Join(dir, "00003.png"), p)
	testutil.WritePNG(t, filepath.Join(dir, "notes.png"), g)
	os.WriteFile(filepath.Join(dir, "00001.txt"), []byte("x"), 0o644)

	m, err := ReadMaskDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][]int{0: {0, 255}, 2: {1<<16 | 2<<8 | 3, 0}, 3: {2, 1}}
	if len(m) != len(want) {
		t.Fatalf("frames %v", m)
	}
	for f, l := range want {
		if m[f] == nil || !reflect.DeepEqual(m[f].Labels, l) || m[f].Width != 2 {
			t.Errorf("frame %d: %+v, want %v", f, m[f], l)
		}
	}
	// Only labelled frames are read when the GT is given.
	gt := gtOf([]int{0, 1}, frame(2, 2, 1, []int{0, 1}, nil))
	if m, err := ReadMaskDir(dir, gt); err != nil || len(m) != 1 || m[2] == nil {
		t.Errorf("with gt: %v %v", m, err)
	}
	// Duplicate frame (FBMS name for frame 0) is an error.
	testutil.WritePNG(t, filepath.Join(dir, "seq_0001.png"), g)
	if _, err := ReadMaskDir(dir, nil); err == nil {
		t.Error("duplicate frame accepted")
	}
	if _, err := ReadMaskDir(t.TempDir(), nil); err == nil {
		t.Error("empty folder accepted")
	}
}

// Scoring the ground truth against itself as masks gives a perfect result.
func TestMasksSelf(t *testing.T) {
	reg := []int{0, 0, 1, 1, 2, 0}
	gt := gtOf([]int{0, 7, 9}, frame(0, 3, 2, reg, []float64{1, .5, 1, .2, 1, 1}), frame(3, 3, 2, reg, nil))
	masks := map[int]*LabelImage{}
	for _, f := range gt.Frames {
		l := make([]int, len(f.Region))
		for i, r := range f.Region {
			l[i] = gt.Colors[r]
		}
		masks[f.Frame] = &LabelImage{Width: 3, Height: 2, Labels: l}
	}
	r, err := Masks(gt, masks, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.F != 1 || r.Objects != 2 || r.Visible != 2 || r.Density != 100 || r.IoU != 1 || r.JMean != 1 {
		t.Errorf("%+v", r)
	}
	// A missing mask leaves its frame uncovered: lower density, while P, R,
	// F, IoU and J only see covered pixels (the frame's J is 1: both unions
	// empty).
	// It is an error unless allowed; allowed, it is reported.
	delete(masks, 3)
	if _, err := Masks(gt, masks, Options{}); err == nil || !strings.Contains(err.Error(), "no mask for 1 of 2 labelled frames: 3 (") {
		t.Fatalf("missing mask: %v", err)
	}
	r, err = Masks(gt, masks, Options{AllowMissingMasks: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.MissingMasks, []int{3}) || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "no mask for 1 of 2 labelled frames (3)") {
		t.Errorf("missing %v, warnings %q", r.MissingMasks, r.Warnings)
	}
	near(t, "density", r.Density, 50)
	near(t, "F", r.F, 1)
	near(t, "J", r.JMean, 1)
	if r.LabelledFrames != 2 {
		t.Errorf("labelled frames %d", r.LabelledFrames)
	}
}
