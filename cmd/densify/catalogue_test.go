package main

// The bad-input catalogue: every malformed or unlucky input a new
// user tried, run through the binary as a user would, with the expected exit
// code, the expected message (file and line where there is one), no output
// left behind and every input unchanged (SHA-256 of the fixture tree before
// and after each case).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// catalogueFixture is a synthetic sequence (160×120, 12 frames, ground truth
// every 3rd frame: labelled frames 0, 3, 6, 9) with its ground-truth tracks
// and a set of hand-made bad inputs beside it.
type catalogueFixture struct {
	root   string // everything below is an input; hashed around every case
	seq    string // the sequence folder (frames, GroundTruth/)
	gt     string // its Def.dat
	tracks string // ground-truth trajectories (12 frames)
}

func (f *catalogueFixture) path(name string) string { return filepath.Join(f.root, name) }

func (f *catalogueFixture) write(t *testing.T, name, content string) string {
	t.Helper()
	p := f.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// copyTree copies the folder src to dst (regular files only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeHash hashes every file (name and content) below root.
func treeHash(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s %v\n", rel, d.IsDir())
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// listFiles returns the files below dir (relative), nil when dir is missing.
func listFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func newCatalogueFixture(t *testing.T) *catalogueFixture {
	t.Helper()
	root := t.TempDir()
	data := filepath.Join(root, "data")
	if out, err := densify(t, "synth", "--out", data, "--tracks", "--frames", "12", "--width", "160", "--height", "120", "--gt-every", "3"); err != nil {
		t.Fatalf("synth: %v\n%s", err, out)
	}
	f := &catalogueFixture{root: root, seq: filepath.Join(data, "synth01")}
	f.gt = filepath.Join(f.seq, "GroundTruth", "synth01Def.dat")
	f.tracks = filepath.Join(f.seq, "synth01Tracks12_gt.dat")

	// Def.dat in the second FBMS form: an empty line instead of each
	// "Scale of region N:" title, no colon after the matrix title.
	def, err := os.ReadFile(f.gt)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(def), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Scale of region") {
			lines[i] = ""
		}
	}
	emptyForm := strings.Replace(strings.Join(lines, "\n"), "matrix:", "matrix", 1)
	copyTree(t, filepath.Join(f.seq, "GroundTruth"), f.path("gt-empty-lines"))
	f.write(t, "gt-empty-lines/synth01Def.dat", emptyForm)

	// A label image with a colour the Def.dat does not list (the last pixel
	// of the first label image becomes RGB 1,2,3).
	copyTree(t, filepath.Join(f.seq, "GroundTruth"), f.path("gt-unlisted"))
	ppms, _ := filepath.Glob(f.path("gt-unlisted/*.ppm"))
	if len(ppms) == 0 {
		t.Fatal("no .ppm label images")
	}
	b, _ := os.ReadFile(ppms[0])
	copy(b[len(b)-3:], []byte{1, 2, 3})
	os.WriteFile(ppms[0], b, 0o644)

	// Ground truth of another size: a copy of the sequence whose label
	// images are 10x10.
	copyTree(t, f.seq, f.path("small-gt/synth01"))
	smalls, _ := filepath.Glob(f.path("small-gt/synth01/GroundTruth/*.p[pg]m"))
	for _, p := range smalls {
		img := append([]byte("P6\n10 10\n255\n"), make([]byte, 300)...)
		if strings.HasSuffix(p, ".pgm") {
			img = append([]byte("P5\n10 10\n255\n"), make([]byte, 100)...)
		}
		os.WriteFile(p, img, 0o644)
	}

	// Trajectories outside the 160×120 frames (another sequence's; negative).
	f.write(t, "far.dat", "12\n1\n0 2\n500 10 0\n501 10 1\n")
	f.write(t, "negative.dat", "12\n1\n0 2\n-5 10 0\n-4 10 1\n")
	f.write(t, "inside.dat", "12\n1\n0 2\n5 10 0\n6 10 1\n")
	f.write(t, "one.graph", "1 0\n")
	f.write(t, "one.labels", "0\n")
	// The ground-truth tracks with one label of 40000.
	tr, _ := os.ReadFile(f.tracks)
	tl := strings.Split(string(tr), "\n")
	tl[2] = "40000 " + strings.Fields(tl[2])[1]
	f.write(t, "label40000.dat", strings.Join(tl, "\n"))

	// Masks: one per pixel colour over the four labelled frames (76800
	// distinct colours, beyond the cluster bound), and only frame 0's mask.
	for k, fr := range []int{0, 3, 6, 9} {
		img := image.NewNRGBA(image.Rect(0, 0, 160, 120))
		for i := 0; i < 160*120; i++ {
			c := k*160*120 + i
			img.SetNRGBA(i%160, i/160, color.NRGBA{uint8(c >> 16), uint8(c >> 8), uint8(c), 255})
		}
		testutil.WritePNG(t, f.path(fmt.Sprintf("photo-masks/%05d.png", fr)), img)
	}
	testutil.WritePNG(t, f.path("one-mask/00000.png"), image.NewGray(image.Rect(0, 0, 160, 120)))

	// Graphs and labels.
	f.write(t, "g.txt", "# comment\n3 2\n0 1 1.5 0\n1 2 -2 0\n")
	f.write(t, "l.txt", "0\n0\n1\n")
	f.write(t, "nan.txt", "# comment\n3 2\n0 1 1.5 0\n1 2 nan 0\n")
	f.write(t, "huge.txt", "3 2\n0 1 1.5 0\n1 2 1e308 0\n")
	f.write(t, "short-labels.txt", "0\n1\n")
	f.write(t, "badtoken.dat", "5\n1\n0 2\n1 2 0\n1 2 x\n")
	f.write(t, "badDef.dat", "Ground truth definition file; do not change!\n\nTotal number of regions:\n1\n\nScale of region 0:\n0\n")
	f.write(t, "badlist.txt", "only-one-field\n")
	f.write(t, "u-bad.csv", "node,uncertainty\n0,0.5\n999999,0.1\n")
	f.write(t, "frame.dat", "3\n1\n0 2\n1 2 0\n1 2 5\n")
	f.write(t, "short.dat", "3\n2\n0 1\n1 2 0\n")
	f.write(t, "dup.txt", "3 2\n0 1 1 0\n0 1 2 0\n")
	f.write(t, "self.txt", "3 1\n0 0 1 0\n")
	f.write(t, "nonint.txt", "0\nx\n1\n")
	f.write(t, "tabs.txt", "a\tb\tc\td\n")
	f.write(t, "dupDef.dat", "Ground truth definition file; do not change!\n\nTotal number of regions:\n2\n\n0\n\n0\n")

	// A dataset list whose paths contain spaces (tab-separated).
	copyTree(t, filepath.Join(f.seq, "GroundTruth"), f.path("my data/ground truth"))
	tb, _ := os.ReadFile(f.tracks)
	f.write(t, "my data/my tracks.dat", string(tb))
	f.write(t, "my data/list.txt", "ground truth/synth01Def.dat\tmy tracks.dat\tsynth 01\n")
	addHostileInputs(t, f)
	return f
}

// catalogueCase is one bad (or formerly rejected) input.
type catalogueCase struct {
	name string
	// args builds the command line; out is an empty folder for the outputs.
	args func(f *catalogueFixture, out string) []string
	// code is the expected exit status; want are substrings of the output
	// (stdout and stderr together), the message naming file and line.
	code int
	want []string
	// keep lists outputs (relative to out) that must exist on success; on
	// failure out must stay empty.
	keep []string
	// setup runs before the command (e.g. plants a lock file).
	setup func(t *testing.T, f *catalogueFixture, out string)
	// keepDirs are folders (relative to out) whose files are all kept:
	// outputs of setup, or of a successful command with many files.
	keepDirs []string
	// namesReport: the command writes a report even when it fails
	// (densify report with failed sequences).
	namesReport bool
}

func TestBadInputCatalogue(t *testing.T) {
	f := newCatalogueFixture(t)
	long := strings.Repeat("x", 251) + ".txt" // 255 bytes, the longest legal name
	cases := []catalogueCase{
		// 1. Def.dat in both FBMS forms; colours the Def.dat does not list.
		{name: "def empty-line form", code: 0, want: []string{"Precision, Recall, F:    100.00  100.00  100.00 %"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.path("gt-empty-lines/synth01Def.dat"), "--tracks", f.tracks}
			}},
		{name: "def unlisted colour", code: 0, want: []string{"warning: ", "(labelled frame 0): 1 pixels have colours the Def.dat does not list: 66051 (RGB 1,2,3) ×1; they count as region 0"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.path("gt-unlisted/synth01Def.dat"), "--tracks", f.tracks, "--json", filepath.Join(out, "e.json")}
			}, keep: []string{"e.json"}},
		{name: "def bad colour line", code: 1, want: []string{"badDef.dat:6: colour of region 0: \"Scale of region 0:\" is not an integer (MoSegEval skips exactly one line"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.path("badDef.dat"), "--tracks", f.tracks}
			}},

		// 2. Geometry, before any work.
		{name: "segment tracks outside", code: 1, want: []string{"far.dat: track 0, frame 0: point (500, 10) lies outside the 160x120 frames"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"segment", "--tracks", f.path("far.dat"), "--frames", f.seq, "--out", out}
			}},
		{name: "prepare tracks outside", code: 1, want: []string{"far.dat: prepare: track 0, frame 0: point (500, 10) lies outside the 160x120 frames"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"prepare", "--frames", f.seq, "--tracks", f.path("far.dat"), "--out", filepath.Join(out, "set")}
			}},
		{name: "eval tracks outside", code: 1, want: []string{"far.dat: track 0, frame 0: point (500, 10) lies outside the 160x120 frames"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.path("far.dat"), "--json", filepath.Join(out, "e.json")}
			}},
		{name: "eval negative points", code: 1, want: []string{"negative.dat: track 0, frame 0: point (-5, 10) lies outside the 160x120 frames"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.path("negative.dat")}
			}},
		{name: "sparsify tracks outside", code: 1, want: []string{"lies outside the 160x120 frames", "synth01Def.dat"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"sparsify", "--graph", f.path("one.graph"), "--labels", f.path("one.labels"), "--tracks", f.path("far.dat"), "--gt", f.gt, "--out", out}
			}},
		{name: "heat maps tracks outside", code: 1, want: []string{"far.dat: track 0, frame 0: point (500, 10) lies outside the 160x120 frames"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"uncertainty", "--graph", f.path("one.graph"), "--labels", f.path("one.labels"), "--out", filepath.Join(out, "u.csv"),
					"--tracks", f.path("far.dat"), "--frames", f.seq, "--heatmaps", filepath.Join(out, "heat")}
			}},
		{name: "heat maps ground truth of another size", code: 1, want: []string{"is 10x10 but the frames in", "are 160x120"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"uncertainty", "--graph", f.path("one.graph"), "--labels", f.path("one.labels"), "--out", filepath.Join(out, "u.csv"),
					"--tracks", f.path("inside.dat"), "--frames", f.seq, "--heatmaps", filepath.Join(out, "heat"), "--gt", f.path("small-gt/synth01/GroundTruth/synth01Def.dat")}
			}},
		{name: "run ground truth of another size", code: 1, want: []string{"is 10x10 but the frames in", "are 160x120"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"run", f.path("small-gt/synth01"), "--out", filepath.Join(out, "work")}
			}},

		// 3. Memory: folders as tracks, huge labels, absurd cluster counts.
		{name: "eval tracks is a folder", code: 1, want: []string{f.seq + " is a directory, not a Tracks*.dat file"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.seq}
			}},
		{name: "eval label 40000", code: 0, want: []string{"Clusters: 40001"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.path("label40000.dat")}
			}},
		{name: "eval masks of 76800 colours", code: 1, want: []string{"more than 65536 distinct label values"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--masks", f.path("photo-masks"), "--json", filepath.Join(out, "e.json")}
			}},

		// 4. Numeric flag ranges.
		{name: "sparsify tiny step", code: 1, want: []string{"--step 1e-12 is out of range: want [0.0001, 1]"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"sparsify", "--graph", f.path("one.graph"), "--labels", f.path("one.labels"), "--tracks", f.path("far.dat"), "--gt", f.gt, "--out", out, "--step", "1e-12"}
			}},
		{name: "eval threshold 2", code: 1, want: []string{"--threshold 2 is out of range: want (0, 1)"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.tracks, "--threshold", "2"}
			}},
		{name: "train lr 1e300", code: 1, want: []string{"--lr 1e+300 is out of range: want (0, 1]"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"train", "--set", f.seq, "--out", filepath.Join(out, "model"), "--lr", "1e300"}
			}},
		{name: "train DATASET lr 1e300", code: 1, want: []string{"--lr 1e+300 is out of range: want (0, 1]"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"train", f.seq, "--out", filepath.Join(out, "model"), "--lr", "1e300"}
			}},
		{name: "predict preset nonsense", code: 1, want: []string{`unknown model preset "nonsense" (available: unet-cpu, unet-paper)`},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"predict", "--model", f.path("g.txt"), "--frames", f.seq, "--out", filepath.Join(out, "masks"), "--preset", "nonsense"}
			}},
		{name: "refine without probability maps", code: 1, want: []string{filepath.Join(f.seq, "00000.png") + ": ", "(the probability maps of densify predict --prob)"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"refine", "--frames", f.seq, "--prob", f.seq, "--out", filepath.Join(out, "masks")}
			}},
		{name: "refine band 0", code: 1, want: []string{"--band 0 is out of range: want (0, 1]"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"refine", "--frames", f.seq, "--prob", f.seq, "--out", filepath.Join(out, "masks"), "--band", "0"}
			}},
		{name: "refine out is the probability maps", code: 1, want: []string{"is the input --prob"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"refine", "--frames", f.seq, "--prob", f.path("photo-masks"), "--out", f.path("photo-masks")}
			}},

		// 5. An output that is an input.
		{name: "multicut out is the graph", code: 1, want: []string{"is the input --graph"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"multicut", "--graph", f.path("g.txt"), "--out", f.path("g.txt")}
			}},
		{name: "uncertainty out is the labels", code: 1, want: []string{"is the input --labels"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"uncertainty", "--graph", f.path("g.txt"), "--labels", f.path("l.txt"), "--out", f.path("l.txt")}
			}},
		{name: "eval json is the tracks", code: 1, want: []string{"is the input --tracks"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.tracks, "--json", f.tracks}
			}},

		// 6. A work folder in use.
		{name: "run on a locked sequence", code: 1, want: []string{"synth01 is in use by pid " + strconv.Itoa(os.Getpid())},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				host, _ := os.Hostname()
				b, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "host": host, "started": "2026-01-01T00:00:00Z", "command": "densify run (test)"})
				os.MkdirAll(filepath.Join(out, "work", "synth01"), 0o755)
				os.WriteFile(filepath.Join(out, "work", "synth01", ".lock"), b, 0o644)
			},
			keep: []string{"work/synth01/.lock"}, // the holder's, untouched
			args: func(f *catalogueFixture, out string) []string {
				return []string{"run", f.seq, "--out", filepath.Join(out, "work")}
			}},

		// 7. Shards, merge and Slurm submission.
		{name: "run with a shard out of range", code: 1, want: []string{"--shard 2/2: the index must be in [0, 2) (0-based"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"run", f.seq, "--out", filepath.Join(out, "work"), "--shard", "2/2"}
			}},
		{name: "report of a folder that is no work folder", code: 1, want: []string{"plan.json: no such file: ", "is not the work folder of densify run or ablate"},
			args: func(f *catalogueFixture, out string) []string { return []string{"report", out} }},
		{name: "report with a damaged plan", code: 1, want: []string{filepath.Join("work", "plan.json") + ": unexpected end of JSON input"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				os.MkdirAll(filepath.Join(out, "work"), 0o755)
				os.WriteFile(filepath.Join(out, "work", "plan.json"), []byte("{"), 0o644)
			},
			keep: []string{"work/plan.json"},
			args: func(f *catalogueFixture, out string) []string { return []string{"report", filepath.Join(out, "work")} }},
		{name: "slurm work folder with a percent sign", code: 1, want: []string{"Slurm log paths cannot hold %"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"slurm", f.seq, "--out", filepath.Join(out, "50%")}
			}},

		// An unwritable work folder (a file stands where a folder must be):
		// the cause, and no report path.
		{name: "run out unwritable", code: 1, want: []string{"not a directory"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"run", f.seq, "--out", filepath.Join(f.path("g.txt"), "work")}
			}},

		// 7. Masks missing for labelled frames.
		{name: "eval masks missing", code: 1, want: []string{"no mask for 3 of 4 labelled frames: 3, 6, 9"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--masks", f.path("one-mask"), "--json", filepath.Join(out, "e.json")}
			}},
		{name: "eval masks missing allowed", code: 0, want: []string{"warning: no mask for 3 of 4 labelled frames (3, 6, 9)"}, keep: []string{"e.json"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--masks", f.path("one-mask"), "--allow-missing-masks", "--json", filepath.Join(out, "e.json")}
			}},

		// 8. Output names of 255 bytes.
		{name: "multicut 255-byte output name", code: 0, keep: []string{long, long[:250] + ".json"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"multicut", "--graph", f.path("g.txt"), "--out", filepath.Join(out, long), "--json", filepath.Join(out, long[:250]+".json")}
			}},

		// 9. Costs of ±1e308; lists with spaces.
		{name: "multicut cost 1e308", code: 1, want: []string{"huge.txt:3: cost 1e308 beyond ±1e+150"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"multicut", "--graph", f.path("huge.txt"), "--out", filepath.Join(out, "l.txt"), "--json", filepath.Join(out, "s.json")}
			}},
		{name: "eval list with spaces", code: 0, want: []string{"synth 01", "100.00"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--dataset", f.path("my data/list.txt")}
			}},

		// Earlier file:line cases.
		{name: "graph NaN cost", code: 1, want: []string{"nan.txt:4: cost \"nan\" is not finite"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"multicut", "--graph", f.path("nan.txt"), "--out", filepath.Join(out, "l.txt")}
			}},
		{name: "labels too few", code: 1, want: []string{"short-labels.txt:2: 2 labels for 3 nodes"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"uncertainty", "--graph", f.path("g.txt"), "--labels", f.path("short-labels.txt"), "--out", filepath.Join(out, "u.csv")}
			}},
		{name: "tracks bad token", code: 1, want: []string{"badtoken.dat:5:"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.path("badtoken.dat")}
			}},
		{name: "tracks frame out of range", code: 1, want: []string{"frame.dat:5: frame 5 of track 0 outside [0, 3)"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"segment", "--tracks", f.path("frame.dat"), "--out", out}
			}},
		{name: "tracks truncated", code: 1, want: []string{"short.dat:4: unexpected end of file, expected label of track 1"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"segment", "--tracks", f.path("short.dat"), "--out", out}
			}},
		{name: "graph duplicate edge", code: 1, want: []string{"dup.txt:3: duplicate edge (0,1) (already on line 2)"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"multicut", "--graph", f.path("dup.txt"), "--out", filepath.Join(out, "l.txt")}
			}},
		{name: "graph self-loop", code: 1, want: []string{"self.txt:2: self-loop (0,0)"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"multicut", "--graph", f.path("self.txt"), "--out", filepath.Join(out, "l.txt")}
			}},
		{name: "labels not an integer", code: 1, want: []string{"nonint.txt:2: label \"x\" is not an integer"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"uncertainty", "--graph", f.path("g.txt"), "--labels", f.path("nonint.txt"), "--out", filepath.Join(out, "u.csv")}
			}},
		{name: "list with four tab fields", code: 1, want: []string{"tabs.txt:1: want", "got 4 fields"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--dataset", f.path("tabs.txt")}
			}},
		{name: "def duplicate colour", code: 1, want: []string{"dupDef.dat:8: region 1 has the same colour 0 as region 0"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.path("dupDef.dat"), "--tracks", f.tracks}
			}},
		{name: "list bad line", code: 1, want: []string{"badlist.txt:1: want"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--dataset", f.path("badlist.txt")}
			}},
		{name: "uncertainty csv of another track set", code: 1, want: []string{"u-bad.csv:3"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"prepare", "--frames", f.seq, "--tracks", f.tracks, "--uncertainty", f.path("u-bad.csv"), "--out", filepath.Join(out, "set")}
			}},
	}
	cases = append(cases, hostileCases(f)...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			if c.setup != nil {
				c.setup(t, f, out)
			}
			before := treeHash(t, f.root)
			args := c.args(f, out)
			cmd := exec.Command(bin, args...)
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = &buf, &buf
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code {
				t.Errorf("densify %s: exit %d, want %d\n%s", strings.Join(args, " "), code, c.code, buf.String())
			}
			for _, w := range c.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, buf.String())
				}
			}
			if code != 0 && !c.namesReport && strings.Contains(buf.String(), "report: ") {
				t.Errorf("a failed command names a report:\n%s", buf.String())
			}
			if code != 0 && strings.Contains(buf.String(), "panic") {
				t.Errorf("panic:\n%s", buf.String())
			}
			got := listFiles(out)
			keep := map[string]bool{}
			for _, k := range c.keep {
				keep[k] = true
				if c.code == 0 || c.setup != nil {
					if _, err := os.Stat(filepath.Join(out, k)); err != nil {
						t.Errorf("expected output %s: %v", k, err)
					}
				}
			}
			for _, g := range got {
				if !keep[g] && !slices.ContainsFunc(c.keepDirs, func(d string) bool { return strings.HasPrefix(g, d+string(filepath.Separator)) }) {
					t.Errorf("left behind: %s", g)
				}
			}
			if after := treeHash(t, f.root); after != before {
				t.Errorf("an input was changed")
			}
		})
	}
}

// Every numeric flag of every command has a range (checks.go), its default
// lies in it, and --help shows it.
func TestEveryNumericFlagHasARange(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			switch fl.Value.Type() {
			case "int", "int64", "float64", "int32", "uint", "float32":
			default:
				return
			}
			r, ok := checks.RangeOf(c, fl)
			if !ok {
				t.Errorf("%s --%s has no range", c.Name(), fl.Name)
				return
			}
			if v, err := strconv.ParseFloat(fl.DefValue, 64); err != nil || !r.Contains(v) {
				t.Errorf("%s --%s: default %s outside %s", c.Name(), fl.Name, fl.DefValue, r)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(NewCmdRoot(NewFactory()))
	out, err := densify(t, "sparsify", "--help")
	if err != nil || !strings.Contains(out, "(range [0.0001, 1])") {
		t.Errorf("help without ranges: %v\n%s", err, out)
	}
}
