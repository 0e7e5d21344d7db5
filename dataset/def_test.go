package dataset

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const handDef = `Ground truth definition file; do not change!

Total number of regions:
3
Scale of region 0:
0
Scale of region 1:
16711680
Scale of region 2:
65535

Confusion penality matrix:
0 1 1
1 0 0.5
1 0.5 0

Total number of frames in this shot:
20
Total number of labeled frames for this shot:
2
Frame number:
0
File name:
seq_0001_gt.ppm
Input file name:
seq_0001.ppm
Frame number:
19
File name:
seq_0020_gt.ppm
Input file name:
seq_0020.ppm
`

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadDefHandWritten(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "seqDef.dat"), []byte(handDef))
	// 3x1 label image: black, red (255,0,0)=16711680, and an unknown colour (1,2,3).
	writeFile(t, filepath.Join(dir, "seq_0001_gt.ppm"), append([]byte("P6\n3 1\n255\n"), 0, 0, 0, 255, 0, 0, 1, 2, 3))
	writeFile(t, filepath.Join(dir, "seq_0001_gt.pgm"), append([]byte("P5\n3 1\n255\n"), 255, 51, 0))
	// Second frame: cyan (0,255,255)=65535 everywhere, no probability image.
	writeFile(t, filepath.Join(dir, "seq_0020_gt.ppm"), []byte("P3\n3 1\n255\n0 255 255 0 255 255 0 255 255\n"))
	gt, err := ReadDef(filepath.Join(dir, "seqDef.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gt.Colors, []int{0, 16711680, 65535}) {
		t.Errorf("colours %v", gt.Colors)
	}
	if !reflect.DeepEqual(gt.Penalty, [][]float64{{0, 1, 1}, {1, 0, 0.5}, {1, 0.5, 0}}) {
		t.Errorf("penalty %v", gt.Penalty)
	}
	if gt.TotalFrames != 20 || len(gt.Frames) != 2 {
		t.Fatalf("total %d, %d frames", gt.TotalFrames, len(gt.Frames))
	}
	f0, f1 := gt.Frames[0], gt.Frames[1]
	if f0.Frame != 0 || f0.File != "seq_0001_gt.ppm" || f0.Input != "seq_0001.ppm" || f0.Width != 3 || f0.Height != 1 {
		t.Errorf("frame 0: %+v", f0)
	}
	if !reflect.DeepEqual(f0.Region, []int{0, 1, -1}) || !reflect.DeepEqual(f0.Prob, []float64{1, 0.2, 0}) {
		t.Errorf("frame 0 regions %v probs %v", f0.Region, f0.Prob)
	}
	if f1.Frame != 19 || !reflect.DeepEqual(f1.Region, []int{2, 2, 2}) || !reflect.DeepEqual(f1.Prob, []float64{1, 1, 1}) {
		t.Errorf("frame 1: %+v", f1)
	}
	// The writer reproduces the hand-written file byte for byte.
	var buf bytes.Buffer
	if err := EncodeDef(&buf, gt); err != nil {
		t.Fatal(err)
	}
	if buf.String() != handDef {
		t.Errorf("EncodeDef:\n%s\nwant\n%s", buf.String(), handDef)
	}
}

func TestParseDefToleratesCRLFAndBlankLines(t *testing.T) {
	src := strings.ReplaceAll(strings.Replace(handDef, "Total number of regions:\n3\n", "Total number of regions:\n\n3\n", 1), "\n", "\r\n")
	gt, err := ParseDef(strings.NewReader(src), "crlf.dat")
	if err != nil {
		t.Fatal(err)
	}
	if len(gt.Colors) != 3 || gt.Frames[1].Input != "seq_0020.ppm" {
		t.Fatalf("%+v", gt)
	}
	// Matrix values may be spread over lines as MoSegEval reads them with >>.
	src = strings.Replace(handDef, "0 1 1\n1 0 0.5\n1 0.5 0\n", "0 1 1 1\n0 0.5 1 0.5\n0\n", 1)
	gt, err = ParseDef(strings.NewReader(src), "m.dat")
	if err != nil || !reflect.DeepEqual(gt.Penalty, [][]float64{{0, 1, 1}, {1, 0, 0.5}, {1, 0.5, 0}}) {
		t.Fatalf("%v %v", gt, err)
	}
}

// emptyLineDef is handDef in the second form found in FBMS59: an empty line
// instead of each "Scale of region N:" title and no colon after "Confusion
// penality matrix". MoSegEval skips one line before each colour, so it
// reads both forms alike.
var emptyLineDef = strings.NewReplacer("Scale of region 0:\n", "\n", "Scale of region 1:\n", "\n",
	"Scale of region 2:\n", "\n", "Confusion penality matrix:", "Confusion penality matrix").Replace(handDef)

func TestParseDefBothFBMSForms(t *testing.T) {
	want, err := ParseDef(strings.NewReader(handDef), "d.dat")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(emptyLineDef, "\n\n0\n\n16711680\n\n65535\n") || strings.Contains(emptyLineDef, "Scale") {
		t.Fatalf("replacer did not build the empty-line form:\n%s", emptyLineDef)
	}
	for name, src := range map[string]string{
		"empty lines":       emptyLineDef,
		"empty lines CRLF":  strings.ReplaceAll(emptyLineDef, "\n", "\r\n"),
		"titles, no colon":  strings.Replace(handDef, "matrix:", "matrix", 1),
		"other title words": strings.ReplaceAll(handDef, "Scale of region", "Colour of region"),
	} {
		got, err := ParseDef(strings.NewReader(src), "d.dat")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
}

func TestUnlistedColourWarning(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "seqDef.dat"), []byte(emptyLineDef))
	// Frame 0: black, red, and two pixels of the unlisted colour (1,2,3) = 66051.
	writeFile(t, filepath.Join(dir, "seq_0001_gt.ppm"), append([]byte("P6\n4 1\n255\n"), 0, 0, 0, 255, 0, 0, 1, 2, 3, 1, 2, 3))
	writeFile(t, filepath.Join(dir, "seq_0020_gt.ppm"), append([]byte("P6\n4 1\n255\n"), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
	gt, err := ReadDef(filepath.Join(dir, "seqDef.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gt.Frames[0].Region, []int{0, 1, -1, -1}) {
		t.Errorf("regions %v", gt.Frames[0].Region)
	}
	want := filepath.Join(dir, "seq_0001_gt.ppm") + " (labelled frame 0): 2 pixels have colours the Def.dat does not list: 66051 (RGB 1,2,3) ×2; they count as region 0 (colour 0), as in MoSegEval"
	if len(gt.Warnings) != 1 || gt.Warnings[0] != want {
		t.Errorf("warnings %q\nwant %q", gt.Warnings, want)
	}
}

func TestParseDefErrors(t *testing.T) {
	rep := func(old, new string) string { return strings.Replace(handDef, old, new, 1) }
	cases := []struct{ name, src, want string }{
		{"empty", "", "d.dat:1: empty file"},
		{"no regions label", "x\n\nregions\n2\n", "d.dat:3: expected \"Total number of regions\", found \"regions\""},
		{"regions not a number", rep("regions:\n3", "regions:\nthree"), "d.dat:4: number of regions: \"three\" is not an integer"},
		{"zero regions", rep("regions:\n3", "regions:\n0"), "d.dat:4: number of regions 0 out of range"},
		{"colour too big", rep("16711680", "16777216"), "d.dat:8: colour of region 1 16777216 out of range"},
		{"duplicate colour", rep("65535", "0"), "d.dat:10: region 2 has the same colour 0 as region 0"},
		{"missing scale line", rep("Scale of region 2:\n", ""), "d.dat:11: colour of region 2: \"Confusion penality matrix:\" is not an integer (MoSegEval skips exactly one line"},
		{"extra blank before scale", rep("3\nScale of region 0:", "3\n\nScale of region 0:"), "d.dat:6: colour of region 0: \"Scale of region 0:\" is not an integer"},
		{"penalty NaN", rep("1 0 0.5", "1 NaN 0.5"), "d.dat:14: penalty \"NaN\" is not a finite number"},
		{"penalty word", rep("1 0 0.5", "1 zero 0.5"), "d.dat:14: penalty \"zero\" is not a finite number"},
		{"penalty too many", rep("1 0.5 0\n", "1 0.5 0 7\n"), "d.dat:15: more than 3x3 values"},
		{"penalty short", rep("1 0.5 0\n", ""), "d.dat:16: penalty \"Total\" is not a finite number"},
		{"total frames", rep("shot:\n20", "shot:\n-4"), "d.dat:18: total number of frames -4 out of range"},
		{"frame out of range", rep("Frame number:\n19", "Frame number:\n20"), "d.dat:28: frame number 20 outside [0, 20)"},
		{"frames not increasing", rep("Frame number:\n19", "Frame number:\n0"), "d.dat:28: frame numbers must increase: 0 after 0"},
		{"bad extension", rep("seq_0020_gt.ppm", "seq_0020_gt.png"), "d.dat:30: label image \"seq_0020_gt.png\" must be a .ppm or .pgm file"},
		{"space in name", rep("seq_0020_gt.ppm", "seq 0020_gt.ppm"), "d.dat:30: file name \"seq 0020_gt.ppm\" contains white space"},
		{"truncated", handDef[:strings.Index(handDef, "Frame number:\n19")], "d.dat:26: unexpected end of file, expected \"Frame number\""},
		{"truncated name", handDef[:strings.LastIndex(handDef, "File name:")+11], "d.dat:29: unexpected end of file, expected label image file name"},
		{"trailing", handDef + "\nextra\n", "d.dat:34: unexpected text \"extra\" after the last of 2 labelled frames"},
		{"labelled count", rep("for this shot:\n2", "for this shot:\nx"), "d.dat:20: number of labelled frames: \"x\" is not an integer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDef(strings.NewReader(c.src), "d.dat")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got %v\nwant prefix %q", err, c.want)
			}
		})
	}
}

func TestReadDefImageErrors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{"missing label image", map[string][]byte{"seq_0020_gt.ppm": []byte("P3 3 1 255 0 0 0 0 0 0 0 0 0")}, "seq_0001_gt.ppm: no such file"},
		{"grey ppm", map[string][]byte{
			"seq_0001_gt.ppm": []byte("P2 3 1 255 0 0 0"),
			"seq_0020_gt.ppm": []byte("P3 3 1 255 0 0 0 0 0 0 0 0 0")}, "seq_0001_gt.ppm: a .ppm label image must be a colour"},
		{"size differs", map[string][]byte{
			"seq_0001_gt.ppm": []byte("P3 3 1 255 0 0 0 0 0 0 0 0 0"),
			"seq_0020_gt.ppm": []byte("P3 1 1 255 0 0 0")}, "seq_0020_gt.ppm is 1x1 but"},
		{"probability size differs", map[string][]byte{
			"seq_0001_gt.ppm": []byte("P3 3 1 255 0 0 0 0 0 0 0 0 0"),
			"seq_0001_gt.pgm": []byte("P2 2 1 255 0 0"),
			"seq_0020_gt.ppm": []byte("P3 3 1 255 0 0 0 0 0 0 0 0 0")}, "seq_0001_gt.pgm is 2x1 but its label image"},
		{"corrupt label", map[string][]byte{
			"seq_0001_gt.ppm": []byte("P3 3 1 255 0 0 0 0 0"),
			"seq_0020_gt.ppm": []byte("P3 3 1 255 0 0 0 0 0 0 0 0 0")}, "seq_0001_gt.ppm:1: unexpected end of file, expected sample"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "seqDef.dat"), []byte(handDef))
			for n, b := range c.files {
				writeFile(t, filepath.Join(dir, n), b)
			}
			_, err := ReadDef(filepath.Join(dir, "seqDef.dat"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func randomGT(rng *rand.Rand, ext string, withProb bool) *GroundTruth {
	nr := 2 + rng.IntN(4)
	gt := &GroundTruth{TotalFrames: 30}
	for i := 0; i < nr; i++ {
		c := i * 60
		if ext == ".ppm" {
			c = rng.IntN(1 << 24)
		}
		gt.Colors = append(gt.Colors, c)
		row := make([]float64, nr)
		for j := range row {
			if j != i {
				row[j] = float64(rng.IntN(9)) / 8
			}
		}
		gt.Penalty = append(gt.Penalty, row)
	}
	w, h := 7, 5
	for f := 0; f < 30; f += 1 + rng.IntN(10) {
		lf := LabelledFrame{Frame: f, File: "GT/s_" + string(rune('a'+f)) + "_gt" + ext, Width: w, Height: h,
			Region: make([]int, w*h), Prob: make([]float64, w*h)}
		for i := range lf.Region {
			lf.Region[i] = rng.IntN(nr+1) - 1 // -1: pixel of no region
			lf.Prob[i] = 1
			if withProb {
				lf.Prob[i] = float64(rng.IntN(256)) / 255
			}
		}
		gt.Frames = append(gt.Frames, lf)
	}
	return gt
}

func TestDefRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		ext  string
		prob bool
	}{{".ppm", true}, {".ppm", false}, {".pgm", false}} {
		dir := t.TempDir()
		gt := randomGT(rng, c.ext, c.prob)
		path := filepath.Join(dir, "sDef.dat")
		if err := WriteDef(path, gt); err != nil {
			t.Fatal(err)
		}
		got, err := ReadDef(path)
		if err != nil {
			t.Fatal(err)
		}
		gt.Path = path
		if hasNone := slices.ContainsFunc(gt.Frames, func(lf LabelledFrame) bool { return slices.Contains(lf.Region, -1) }); hasNone != (len(got.Warnings) > 0) {
			t.Fatalf("pixels without region: %v, warnings %q", hasNone, got.Warnings)
		}
		got.Warnings = nil // pixels without region are written in an unlisted colour
		for k := range gt.Frames {
			gt.Frames[k].Input = strings.TrimSuffix(gt.Frames[k].File, "_gt"+c.ext) + c.ext
		}
		if !reflect.DeepEqual(got, gt) {
			t.Fatalf("%s prob=%v: round trip differs", c.ext, c.prob)
		}
		probs, _ := filepath.Glob(filepath.Join(dir, "GT", "*.pgm"))
		if c.ext == ".ppm" && c.prob != (len(probs) == len(gt.Frames)) {
			t.Fatalf("%s prob=%v: %d probability images", c.ext, c.prob, len(probs))
		}
	}
}

func TestWriteDefRejectsInvalid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	breakers := map[string]func(gt *GroundTruth){
		"pgm colour > 255":   func(gt *GroundTruth) { gt.Colors[1] = 300 },
		"duplicate colour":   func(gt *GroundTruth) { gt.Colors[1] = gt.Colors[0] },
		"penalty shape":      func(gt *GroundTruth) { gt.Penalty = gt.Penalty[1:] },
		"frame out of range": func(gt *GroundTruth) { gt.Frames[0].Frame = 30 },
		"escaping name":      func(gt *GroundTruth) { gt.Frames[0].File = "../x.pgm" },
		"region index":       func(gt *GroundTruth) { gt.Frames[0].Region[3] = 99 },
		"probability":        func(gt *GroundTruth) { gt.Frames[0].Prob[3] = 1.5 },
		"short region":       func(gt *GroundTruth) { gt.Frames[0].Region = gt.Frames[0].Region[1:] },
	}
	for name, br := range breakers {
		dir := t.TempDir()
		gt := randomGT(rng, ".pgm", false)
		br(gt)
		if err := WriteDef(filepath.Join(dir, "sDef.dat"), gt); err == nil {
			t.Errorf("%s: no error", name)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: wrote %v", name, ents)
		}
	}
}

func FuzzParseDef(f *testing.F) {
	f.Add([]byte(handDef))
	f.Add([]byte(strings.ReplaceAll(handDef, "\n", "\r\n")))
	f.Add([]byte(emptyLineDef))
	f.Add([]byte(strings.ReplaceAll(emptyLineDef, "\n", "\r\n")))
	f.Add([]byte(strings.Replace(handDef, "matrix:", "matrix", 1)))
	f.Add([]byte("x\n\nTotal number of regions:\n1\nScale of region 0:\n0\n\nConfusion penality matrix:\n0\n\nTotal number of frames in this shot:\n1\nTotal number of labeled frames for this shot:\n0\n"))
	f.Add([]byte("x\n\nTotal number of regions:\n16777216\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		gt, err := ParseDef(bytes.NewReader(data), "fuzz.dat")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.dat:") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		// Whatever parses encodes and parses back to the same value.
		var buf bytes.Buffer
		if err := EncodeDef(&buf, gt); err != nil {
			t.Fatal(err)
		}
		back, err := ParseDef(&buf, "fuzz.dat")
		if err != nil {
			t.Fatalf("re-parse: %v\n%s", err, buf.String())
		}
		for k := range gt.Frames { // EncodeDef fills empty input names
			if gt.Frames[k].Input == "" {
				gt.Frames[k].Input = back.Frames[k].Input
			}
		}
		if !reflect.DeepEqual(back, gt) {
			t.Fatal("round trip differs")
		}
		// Label images are loaded through an injected opener: a tiny valid image.
		_ = loadLabelImages(gt, func(name string) (io.ReadCloser, error) {
			if strings.HasSuffix(name, ".pgm") {
				return io.NopCloser(strings.NewReader("P2 2 1 255 0 255")), nil
			}
			return io.NopCloser(strings.NewReader("P3 2 1 255 0 0 0 255 255 255")), nil
		}, func(s string) string { return s })
	})
}
