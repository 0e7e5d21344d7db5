package dataset

import (
	"image"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
)

// fbmsSeq writes an FBMS-layout sequence: n frames <seq>_0001.png … and a
// Def.dat with one labelled 2x1 pgm frame in GroundTruth/.
func fbmsSeq(t *testing.T, dir, seq string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		touch(t, dir, seq+"_"+pad4(i)+".png")
	}
	gt := &GroundTruth{Colors: []int{0, 255}, Penalty: [][]float64{{0, 1}, {1, 0}}, TotalFrames: n,
		Frames: []LabelledFrame{{Frame: 0, File: seq + "_0001_gt.pgm", Width: 2, Height: 1,
			Region: []int{0, 1}, Prob: []float64{1, 1}}}}
	if err := WriteDef(filepath.Join(dir, "GroundTruth", seq+"Def.dat"), gt); err != nil {
		t.Fatal(err)
	}
}

func pad4(i int) string {
	s := "000" + string(rune('0'+i%10))
	if i >= 10 {
		s = "00" + string(rune('0'+i/10)) + string(rune('0'+i%10))
	}
	return s
}

func TestFindSequencesLayouts(t *testing.T) {
	// (a) FBMS59 root.
	root := t.TempDir()
	fbmsSeq(t, filepath.Join(root, "Trainingset", "cars1"), "cars1", 3)
	fbmsSeq(t, filepath.Join(root, "Testset", "bear01"), "bear01", 2)
	os.MkdirAll(filepath.Join(root, "Testset", "empty"), 0o755)
	seqs, err := FindSequences(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []SequenceInfo{
		{"cars1", "Trainingset", filepath.Join(root, "Trainingset", "cars1"), filepath.Join(root, "Trainingset", "cars1", "GroundTruth", "cars1Def.dat"), false},
		{"bear01", "Testset", filepath.Join(root, "Testset", "bear01"), filepath.Join(root, "Testset", "bear01", "GroundTruth", "bear01Def.dat"), false},
	}
	if !reflect.DeepEqual(seqs, want) {
		t.Fatalf("got %+v", seqs)
	}
	// (d) a folder of sequences (synth output) and (c) a single sequence.
	root = t.TempDir()
	fbmsSeq(t, filepath.Join(root, "synth001"), "synth001", 12)
	fbmsSeq(t, filepath.Join(root, "synth000"), "synth000", 2)
	touch(t, filepath.Join(root, "nogt"), "nogt_0001.png")
	seqs, err = FindSequences(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 3 || seqs[0].Name != "nogt" || seqs[0].GTPath != "" || seqs[1].Name != "synth000" ||
		seqs[2].GTPath != filepath.Join(root, "synth001", "GroundTruth", "synth001Def.dat") {
		t.Fatalf("got %+v", seqs)
	}
	one, err := FindSequences(filepath.Join(root, "synth001"))
	if err != nil || len(one) != 1 || one[0] != seqs[2] {
		t.Fatalf("single: %+v %v", one, err)
	}
	frames, err := ListFrames(one[0].FramesDir)
	if err != nil || len(frames) != 12 {
		t.Fatalf("%d frames %v", len(frames), err)
	}
	// (b) DAVIS root with split lists.
	root = t.TempDir()
	touch(t, filepath.Join(root, "JPEGImages", "480p", "bear"), "00000.jpg")
	touch(t, filepath.Join(root, "JPEGImages", "480p", "cows"), "00000.jpg")
	touch(t, filepath.Join(root, "Annotations", "480p", "cows"), "00000.png")
	writeFile(t, filepath.Join(root, "ImageSets", "480p", "val.txt"), []byte("/JPEGImages/480p/cows/00000.jpg /Annotations/480p/cows/00000.png\n"))
	writeFile(t, filepath.Join(root, "ImageSets", "480p", "train.txt"), []byte("/JPEGImages/480p/bear/00000.jpg /Annotations/480p/bear/00000.png\n"))
	seqs, err = FindSequences(root)
	if err != nil {
		t.Fatal(err)
	}
	f1, a1 := DAVISPaths(root, "cows")
	f0, _ := DAVISPaths(root, "bear")
	want = []SequenceInfo{{"bear", "train", f0, "", true}, {"cows", "val", f1, a1, true}} // DAVIS: one object each
	if !reflect.DeepEqual(seqs, want) {
		t.Fatalf("got %+v", seqs)
	}
	// Nothing there.
	if _, err := FindSequences(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no sequences found") {
		t.Fatalf("got %v", err)
	}
}

func TestLoadGroundTruthForms(t *testing.T) {
	root := t.TempDir()
	seq := filepath.Join(root, "s")
	fbmsSeq(t, seq, "s", 2)
	def := filepath.Join(seq, "GroundTruth", "sDef.dat")
	for _, p := range []string{def, seq, filepath.Join(seq, "GroundTruth")} {
		gt, err := LoadGroundTruth(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if gt.Path != def || !reflect.DeepEqual(gt.Frames[0].Region, []int{0, 1}) {
			t.Fatalf("%s: %+v", p, gt)
		}
	}
	// Two Def.dat files: ambiguous.
	writeFile(t, filepath.Join(seq, "GroundTruth", "otherDef.dat"), []byte("x"))
	if _, err := LoadGroundTruth(seq); err == nil || !strings.Contains(err.Error(), "several ground-truth files") {
		t.Fatalf("got %v", err)
	}
	// A folder with neither.
	empty := t.TempDir()
	if _, err := LoadGroundTruth(empty); err == nil || !strings.Contains(err.Error(), "not a DAVIS annotation folder") {
		t.Fatalf("got %v", err)
	}
}

// A sequence folder whose name holds a control character is refused: its
// name would split a row of the reports.
func TestFindSequencesRefusesControlCharacters(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"ok", "bad\nname"} {
		dir := filepath.Join(root, name)
		os.MkdirAll(dir, 0o755)
		testutil.WritePNG(t, filepath.Join(dir, "f_0001.png"), image.NewGray(image.Rect(0, 0, 4, 4)))
	}
	if _, err := FindSequences(root); err == nil || !strings.Contains(err.Error(), `the sequence name "bad\nname" holds the control character U+000A`) {
		t.Errorf("%v", err)
	}
	if s, err := FindSequences(filepath.Join(root, "ok")); err != nil || len(s) != 1 {
		t.Errorf("%v %v", s, err)
	}
}
