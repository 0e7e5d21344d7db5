package eval

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/trajectory"
)

// Files on disk give the same numbers as the in-memory hand-computed case
// (TestMoreRegionsThanClusters), through a list with relative paths.
func TestScoreFilesAndList(t *testing.T) {
	dir := t.TempDir()
	gt := gtOf([]int{0, 0xff0000, 0x00ff00}, frame(0, 3, 1, []int{0, 1, 2}, nil))
	gt.Frames[0].File = "seq_01_gt.ppm"
	gt.Penalty = [][]float64{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}
	gt.TotalFrames = 2
	def := filepath.Join(dir, "GroundTruth", "seqDef.dat")
	os.MkdirAll(filepath.Dir(def), 0o755)
	if err := dataset.WriteDef(def, gt); err != nil {
		t.Fatal(err)
	}
	one := &trajectory.TrackSet{Frames: 2, Tracks: []trajectory.Track{pt(0, 0, 0, 0), pt(0, 1, 0, 0)}}
	perfect := &trajectory.TrackSet{Frames: 2, Tracks: []trajectory.Track{pt(0, 0, 0, 0), pt(1, 1, 0, 0), pt(2, 2, 0, 0)}}
	for name, ts := range map[string]*trajectory.TrackSet{"a.dat": one, "b.dat": perfect} {
		if err := trajectory.WriteTracks(filepath.Join(dir, name), ts); err != nil {
			t.Fatal(err)
		}
	}
	lgt, err := dataset.LoadGroundTruth(filepath.Join(dir, "GroundTruth"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ScoreFiles(lgt, filepath.Join(dir, "a.dat"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "F", r.F, 10.0/21)
	rb, _ := ScoreFiles(lgt, filepath.Join(dir, "b.dat"), Options{})
	near(t, "perfect F", rb.F, 1)

	best, bi := BestOfN([]*Result{r, rb, r})
	if !reflect.DeepEqual(best, []float64{r.F, 1, 1}) || bi != 1 {
		t.Errorf("best of n %v %d", best, bi)
	}

	list := filepath.Join(dir, "list.txt")
	os.WriteFile(list, []byte("# sequences\nGroundTruth/seqDef.dat a.dat\n\nGroundTruth b.dat other  # comment\n"), 0o644)
	entries, err := ReadList(list)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Name != "seq" || entries[1].Name != "other" || entries[0].Target != filepath.Join(dir, "a.dat") {
		t.Fatalf("entries %+v", entries)
	}
	var names []string
	var results []*Result
	for _, e := range entries {
		g, err := dataset.LoadGroundTruth(e.GT)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ScoreFiles(g, e.Target, Options{})
		if err != nil {
			t.Fatal(err)
		}
		names, results = append(names, e.Name), append(results, res)
	}
	s := Dataset(names, results)
	near(t, "P", s.Precision, (5.0/6+1)/2)
	near(t, "R", s.Recall, (1.0/3+1)/2)
	if s.Objects != 2 || s.Visible != 4 {
		t.Errorf("objects %d of %d", s.Objects, s.Visible)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, s); err != nil || !strings.Contains(buf.String(), "2/4") || !strings.Contains(buf.String(), "other") {
		t.Errorf("table:\n%s", buf.String())
	}
	buf.Reset()
	if err := WriteReport(&buf, "a.dat", r); err != nil || !strings.Contains(buf.String(), "47.62") {
		t.Errorf("report:\n%s", buf.String())
	}

	os.WriteFile(list, []byte("GroundTruth\n"), 0o644)
	if _, err := ReadList(list); err == nil || !strings.Contains(err.Error(), "list.txt:1") {
		t.Errorf("bad list: %v", err)
	}
}

// Tab-separated lines hold paths with spaces; white-space lines keep working.
func TestParseListTabs(t *testing.T) {
	src := "my gt/cars1Def.dat\tmy out/cars1 Tracks.dat\n  dir/c2Def.dat  out/c2.dat  two # comment\n"
	got, err := ParseList(strings.NewReader(src), "l.txt", "/b")
	if err != nil {
		t.Fatal(err)
	}
	want := []ListEntry{{"cars1", "/b/my gt/cars1Def.dat", "/b/my out/cars1 Tracks.dat"}, {"two", "/b/dir/c2Def.dat", "/b/out/c2.dat"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	if _, err := ParseList(strings.NewReader("a b\nmy gt/x.dat my out/y.dat\n"), "l.txt", "/b"); err == nil ||
		!strings.HasPrefix(err.Error(), "l.txt:2: want") || !strings.Contains(err.Error(), "tabs") {
		t.Errorf("spaces without tabs: %v", err)
	}
}

// A folder given as a tracks file is refused (it would be read as masks).
func TestScoreTracksRejectsFolder(t *testing.T) {
	dir := t.TempDir()
	gt := gtOf([]int{0}, frame(0, 1, 1, []int{0}, nil))
	if _, err := ScoreTracks(gt, dir, Options{}); err == nil || err.Error() != dir+" is a directory, not a Tracks*.dat file (dense masks are scored with --masks)" {
		t.Errorf("folder: %v", err)
	}
	// Tracks whose points lie outside the ground truth's frames.
	p := filepath.Join(dir, "Tracks1.dat")
	if err := os.WriteFile(p, []byte("1\n1\n0 1\n3 0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := p + ": track 0, frame 0: point (3, 0) lies outside the 1x1 frames (tracks of another sequence or resolution?) (ground truth test/Def.dat)"
	if _, err := ScoreTracks(gt, p, Options{}); err == nil || err.Error() != want {
		t.Errorf("outside: %v\nwant %s", err, want)
	}
}

func TestSequenceName(t *testing.T) {
	for in, want := range map[string]string{
		"x/cars1Def.dat": "cars1", "x/cars1/GroundTruth": "cars1", "Annotations/480p/dog/": "dog", "a/b.dat": "b",
	} {
		if got := SequenceName(in); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}

func FuzzParseList(f *testing.F) {
	f.Add("a b\n# c\nd e name\n")
	f.Add("only\n")
	f.Add("my gt/aDef.dat\tmy out/a Tracks.dat\ta 1\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := ParseList(strings.NewReader(s), "list.txt", "/base")
		if err == nil && len(entries) == 0 {
			t.Fatal("no entries and no error")
		}
		if err != nil && !strings.HasPrefix(err.Error(), "list.txt:") {
			t.Fatalf("error without file:line: %v", err)
		}
	})
}

// Sub-pixel points at the border of the frames, as trackers write them,
// are scored as MoSegEval scores them: (int)(x+0.5) inside the frame
// counts (x = −1.2 is column 0), outside is skipped (x = 11.6 in a
// 12-pixel-wide frame is column 12). Points farther out are refused.
func TestScoreTracksBorderPointsAsMoSegEval(t *testing.T) {
	region := make([]int, 12*8)
	for i := range region {
		if i%12 >= 6 {
			region[i] = 1
		}
	}
	gt := gtOf([]int{0, 255}, frame(0, 12, 8, region, nil))
	dir := t.TempDir()
	score := func(name, tracks string) (*Result, error) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(tracks), 0o644); err != nil {
			t.Fatal(err)
		}
		return ScoreTracks(gt, p, Options{})
	}
	border, err := score("border.dat", "1\n4\n1 1\n11.6 2 0\n1 1\n10 2 0\n0 1\n-1.2 2 0\n0 1\n3 7.4 0\n")
	if err != nil {
		t.Fatal(err)
	}
	inside, err := score("inside.dat", "1\n3\n1 1\n10 2 0\n0 1\n0 2 0\n0 1\n3 7 0\n")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(border, inside) {
		t.Errorf("border points scored differently:\n%+v\n%+v", border, inside)
	}
	if _, err := score("far.dat", "1\n1\n0 1\n12.5 2 0\n"); err == nil || !strings.Contains(err.Error(), "point (12.5, 2) lies outside the 12x8 frames") {
		t.Errorf("far point: %v", err)
	}
}

// A list names each sequence once, and a name is one row of the report.
func TestParseListRefusesDuplicatesAndControlCharacters(t *testing.T) {
	for src, want := range map[string]string{
		"a/aDef.dat t1.dat\nb/bDef.dat t2.dat\na/aDef.dat t3.dat\n": `list.txt:3: sequence "a" is listed twice (also on line 1)`,
		"a/aDef.dat t1.dat x\n./a/aDef.dat t2.dat y\n":              "list.txt:2: the ground truth /base/a/aDef.dat is listed twice (also on line 1)",
		"a/aDef.dat\tt1.dat\tsyn\rth\n":                             `list.txt:1: sequence name "syn\rth" holds the control character U+000D`,
		"a/aDef.dat\tt1.dat\tsyn\vth\n":                             "holds the control character U+000B",
	} {
		if _, err := ParseList(strings.NewReader(src), "list.txt", "/base"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	if e, err := ParseList(strings.NewReader("a/aDef.dat t1.dat\nb/bDef.dat t2.dat\n"), "list.txt", "/base"); err != nil || len(e) != 2 {
		t.Errorf("%v %v", e, err)
	}
}
