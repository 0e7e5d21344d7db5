package main

// Hostile inputs of the bad-input catalogue (TestBadInputCatalogue): headers
// that claim more than the file holds, outputs over inputs, partial or
// stale output, and inputs accepted without a word.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/testutil"
)

// progressiveJPEG encodes img as a progressive JPEG (OpenCV's libjpeg).
func progressiveJPEG(t *testing.T, img image.Image) []byte {
	t.Helper()
	m, err := gocv.ImageToMatRGB(img)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	buf, err := gocv.IMEncodeWithParams(".jpg", m, []int{gocv.IMWriteJpegProgressive, 1, gocv.IMWriteJpegQuality, 90})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	return bytes.Clone(buf.GetBytes())
}

func addHostileInputs(t *testing.T, f *catalogueFixture) {
	t.Helper()
	// Headers claiming more than the file holds.
	f.write(t, "huge-nodes.graph", "# 10^8 nodes for one edge\n100000000 1\n0 1 1 0\n")
	f.write(t, "huge.png", string(testutil.PNGClaiming(t, 50000, 50000)))
	f.write(t, "huge-masks/00000.png", string(testutil.PNGClaiming(t, 50000, 50000)))
	f.write(t, "big-masks/00000.png", string(testutil.PNGClaiming(t, 2000, 2000)))
	f.write(t, "far308.dat", "12\n1\n0 2\n1e308 10 0\n5 10 1\n")
	f.write(t, "inf.dat", "12\n1\n0 2\ninf 10 0\n5 10 1\n")
	// Border points as trackers write them, and one far outside.
	f.write(t, "border.dat", "12\n2\n0 1\n159.6 10 0\n0 1\n-1.2 10 0\n")
	f.write(t, "border-far.dat", "12\n1\n0 1\n161 10 0\n")
	// A labelling whose cluster 0 is joined by a lifted edge only.
	f.write(t, "disc.graph", "3 2\n0 1 1 0\n1 2 1 1\n")
	f.write(t, "disc.labels", "0\n1\n0\n")
	// An uncertainty CSV whose label column groups the nodes otherwise.
	tr, _ := os.ReadFile(f.tracks)
	n, _ := strconv.Atoi(strings.Fields(string(tr))[1])
	var csv strings.Builder
	csv.WriteString("node,label,gamma,uncertainty,likelihood_uncertainty,target\n")
	for i := range n {
		fmt.Fprintf(&csv, "%d,%d,1,0.1,0.1,-1\n", i, i%2)
	}
	f.write(t, "u-contra.csv", csv.String())
	// A cost model of another version.
	cm, err := os.ReadFile(filepath.Join("..", "..", "motiongraph", "davis_costs.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, "cm99.json", strings.Replace(string(cm), `"version": 1`, `"version": 99`, 1))
	// A sequence whose last frame is cut in half.
	copyTree(t, f.seq, f.path("corrupt-seq/synth01"))
	last := f.path("corrupt-seq/synth01/synth01_0012.png")
	b, _ := os.ReadFile(last)
	os.WriteFile(last, b[:len(b)/2], 0o644)
	// Progressive JPEG frames, frame 5 cut after its first scan and closed
	// with an end-of-image marker (image/jpeg decodes that without a word).
	frames, err := dataset.ListFrames(f.seq)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range frames {
		img, err := dataset.ReadImage(p)
		if err != nil {
			t.Fatal(err)
		}
		j := progressiveJPEG(t, img)
		if i == 5 {
			first := bytes.Index(j, []byte{0xff, 0xda})
			second := bytes.Index(j[first+2:], []byte{0xff, 0xda})
			j = append(j[:first+2+second:first+2+second], 0xff, 0xd9)
		}
		f.write(t, fmt.Sprintf("jpeg-seq/%05d.jpg", i), string(j))
	}
	// Lists naming a sequence twice, and a name with a carriage return.
	f.write(t, "twice.txt", f.gt+"\t"+f.tracks+"\tone\n"+f.gt+"\t"+f.tracks+"\ttwo\n")
	f.write(t, "cr.txt", f.gt+"\t"+f.tracks+"\tsyn\rth01\n")
}

// prepareInto runs densify prepare into out/set (a setup step).
func prepareInto(t *testing.T, f *catalogueFixture, out string, extra ...string) string {
	t.Helper()
	set := filepath.Join(out, "set")
	if o, err := densify(t, append([]string{"prepare", "--frames", f.seq, "--tracks", f.tracks, "--out", set}, extra...)...); err != nil {
		t.Fatalf("prepare: %v\n%s", err, o)
	}
	return set
}

// editManifest replaces old by new in out/set/manifest.json.
func editManifest(t *testing.T, out, old, new string) {
	t.Helper()
	p := filepath.Join(out, "set", "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil || !bytes.Contains(b, []byte(old)) {
		t.Fatalf("manifest without %s: %v", old, err)
	}
	os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644)
}

// tinyRun are the flags of a run of a few seconds (the foreground segments
// of the 12-frame sequence are small, so --min-segment 0 keeps them).
var tinyRun = []string{"--min-segment", "0", "--epochs", "1", "--scale", "0.25", "--threads", "1"}

func hostileCases(f *catalogueFixture) []catalogueCase {
	frame := filepath.Join(f.seq, "synth01_0002.png")
	label := filepath.Join(f.seq, "GroundTruth", "synth01_0004.ppm")
	return []catalogueCase{
		// Crashes: counts and sizes read from a header are bounded by what
		// the file holds.
		{name: "graph header of 10^8 nodes", code: 1, want: []string{"huge-nodes.graph:2: node count 100000000: the 1 edges announced touch at most 2 nodes"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"multicut", "--graph", f.path("huge-nodes.graph"), "--out", filepath.Join(out, "l.txt")}
			}},
		{name: "decompose png claiming 50000x50000", code: 1, want: []string{"huge.png: png image of unsupported size 50000x50000"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"decompose", "--image", f.path("huge.png"), "--out", filepath.Join(out, "d")}
			}},
		{name: "eval masks png claiming 50000x50000", code: 1, want: []string{filepath.Join("huge-masks", "00000.png") + ": png image of unsupported size 50000x50000"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--masks", f.path("huge-masks"), "--allow-missing-masks", "--json", filepath.Join(out, "e.json")}
			}},
		{name: "eval masks png claiming more than its bytes", code: 1, want: []string{filepath.Join("big-masks", "00000.png") + ": the png header claims 2000x2000 pixels, more than its"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--masks", f.path("big-masks"), "--allow-missing-masks"}
			}},
		{name: "segment coordinate 1e308 without frames", code: 1, want: []string{"far308.dat:4: point (1e+308, 10) of track 0 lies beyond ±1e+06 pixels"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"segment", "--tracks", f.path("far308.dat"), "--out", out}
			}},

		// Inputs overwritten: one rule for every output flag.
		{name: "track out over a frame", code: 1, want: []string{"--out " + frame + " is the input --frames " + f.seq + " (" + frame + ")"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"track", "--frames", f.seq, "--out", frame}
			}},
		{name: "track out over the Def.dat", code: 1, want: []string{"--out " + f.gt + " is the input --frames"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"track", "--frames", f.seq, "--out", f.gt}
			}},
		{name: "track vis over a frame", code: 1, want: []string{"--vis " + frame + " is the input --frames"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"track", "--frames", f.seq, "--out", filepath.Join(out, "t.dat"), "--vis", frame}
			}},
		{name: "eval json over the Def.dat of a gt folder", code: 1, want: []string{"--json " + f.gt + " is the input --gt " + f.seq},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.seq, "--tracks", f.tracks, "--json", f.gt}
			}},
		{name: "eval json over a ground-truth image", code: 1, want: []string{"--json " + label + " is the input --gt"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.tracks, "--json", label}
			}},
		{name: "eval json over a mask", code: 1, want: []string{"is the input --masks"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--masks", f.path("one-mask"), "--allow-missing-masks", "--json", f.path("one-mask/00000.png")}
			}},
		{name: "segment name over its own tracks", code: 1, want: []string{`--name "../../synth01" is a path: give a name`},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"segment", "--tracks", f.tracks, "--out", filepath.Join(f.seq, "a", "b"), "--name", "../../synth01"}
			}},
		{name: "segment name anywhere", code: 1, want: []string{`--name "../../evil" is a path`},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"segment", "--tracks", f.tracks, "--out", filepath.Join(out, "seg"), "--name", "../../evil"}
			}},

		// Partial or stale output.
		{name: "segment infinite coordinate", code: 1, want: []string{`inf.dat:4: x: "inf" is not a finite number`},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"segment", "--tracks", f.path("inf.dat"), "--out", out}
			}},
		{name: "track with statistics that cannot be written", code: 1, want: []string{"stats.json"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				os.MkdirAll(filepath.Join(out, "stats.json"), 0o755)
				os.WriteFile(filepath.Join(out, "stats.json", "x"), nil, 0o644)
			},
			keep: []string{filepath.Join("stats.json", "x")},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"track", "--frames", f.seq, "--out", filepath.Join(out, "t.dat"), "--stats", filepath.Join(out, "stats.json")}
			}},
		{name: "multicut with a summary that cannot be written", code: 1, want: []string{"s.json"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				os.MkdirAll(filepath.Join(out, "s.json"), 0o755)
				os.WriteFile(filepath.Join(out, "s.json", "x"), nil, 0o644)
			},
			keep: []string{filepath.Join("s.json", "x")},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"multicut", "--graph", f.path("g.txt"), "--out", filepath.Join(out, "l.txt"), "--json", filepath.Join(out, "s.json")}
			}},
		{name: "nbest into a folder of other files", code: 1, want: []string{"notes.txt, which densify did not write there"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				os.MkdirAll(filepath.Join(out, "nb"), 0o755)
				os.WriteFile(filepath.Join(out, "nb", "notes.txt"), []byte("mine"), 0o644)
			},
			keep: []string{filepath.Join("nb", "notes.txt")},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"nbest", "--graph", f.path("g.txt"), "--labels", f.path("l.txt"), "--out", filepath.Join(out, "nb")}
			}},
		{name: "heat maps with a corrupt frame", code: 1, want: []string{"synth01_0012.png"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"uncertainty", "--graph", f.path("one.graph"), "--labels", f.path("one.labels"), "--out", filepath.Join(out, "u.csv"),
					"--tracks", f.path("inside.dat"), "--frames", f.path("corrupt-seq/synth01"), "--heatmaps", filepath.Join(out, "heat"), "--all-frames"}
			}},
		{name: "heat maps into a folder of other files", code: 1, want: []string{"notes.txt, which densify did not write there"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				os.MkdirAll(filepath.Join(out, "heat"), 0o755)
				os.WriteFile(filepath.Join(out, "heat", "notes.txt"), []byte("mine"), 0o644)
			},
			keep: []string{filepath.Join("heat", "notes.txt")},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"uncertainty", "--graph", f.path("one.graph"), "--labels", f.path("one.labels"), "--out", filepath.Join(out, "u.csv"),
					"--tracks", f.path("inside.dat"), "--frames", f.seq, "--heatmaps", filepath.Join(out, "heat")}
			}},
		{name: "predict into a folder of other files", code: 1, want: []string{"notes.txt, which densify did not write there"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				os.MkdirAll(filepath.Join(out, "masks"), 0o755)
				os.WriteFile(filepath.Join(out, "masks", "00007.png"), nil, 0o644)
				os.WriteFile(filepath.Join(out, "masks", "notes.txt"), []byte("mine"), 0o644)
			},
			keep: []string{filepath.Join("masks", "notes.txt"), filepath.Join("masks", "00007.png")},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"predict", "--model", f.path("g.txt"), "--frames", f.seq, "--out", filepath.Join(out, "masks")}
			}},
		{name: "predict removes a killed run's temporary", code: 1, want: []string{"g.txt"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				os.MkdirAll(filepath.Join(out, ".pk.tmp4242", "prob"), 0o755)
				os.WriteFile(filepath.Join(out, ".pk.tmp4242", "00000.png"), nil, 0o644)
			},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"predict", "--model", f.path("g.txt"), "--frames", f.seq, "--out", filepath.Join(out, "pk")}
			}},

		// Silently accepted.
		{name: "prepare without a foreground label", code: 0, want: []string{"has no foreground label: every labelled pixel is background", "densify train refuses a set of one class"},
			keepDirs: []string{"set"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"prepare", "--frames", f.seq, "--tracks", f.tracks, "--out", filepath.Join(out, "set"), "--min-segment", "100000"}
			}},
		{name: "train on one class", code: 1, want: []string{"every labelled pixel is background (class 0): there is no moving object to learn"},
			setup:    func(t *testing.T, f *catalogueFixture, out string) { prepareInto(t, f, out, "--min-segment", "100000") },
			keepDirs: []string{"set"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"train", "--set", filepath.Join(out, "set"), "--out", filepath.Join(out, "model")}
			}},
		{name: "train on a manifest of version 99", code: 1, want: []string{"manifest.json: invalid manifest: version 99: this densify reads prepared sets of versions 1 to"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				prepareInto(t, f, out)
				editManifest(t, out, `"version": 4`, `"version": 99`)
			},
			keepDirs: []string{"set"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"train", "--set", filepath.Join(out, "set"), "--out", filepath.Join(out, "model")}
			}},
		{name: "train on a manifest factor of -1000", code: 1, want: []string{"manifest.json: invalid manifest: parameters: prepare: hard-example factor must be in (0, 1e6], got -1000"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				prepareInto(t, f, out)
				editManifest(t, out, `"Factor": 1000`, `"Factor": -1000`)
			},
			keepDirs: []string{"set"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"train", "--set", filepath.Join(out, "set"), "--out", filepath.Join(out, "model")}
			}},
		{name: "train resume with a damaged log", code: 1, want: []string{filepath.Join("model", "train_log.csv") + ":3: epoch 1, step 2, loss NaN", "train again without --resume"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				set := prepareInto(t, f, out)
				model := filepath.Join(out, "model")
				if o, err := densify(t, "train", "--set", set, "--out", model, "--epochs", "1", "--scale", "0.25", "--threads", "1"); err != nil {
					t.Fatalf("train: %v\n%s", err, o)
				}
				p := filepath.Join(model, "train_log.csv")
				b, _ := os.ReadFile(p)
				lines := strings.Split(string(b), "\n")
				fields := strings.Split(lines[2], ",")
				fields[2] = "NaN"
				lines[2] = strings.Join(fields, ",")
				os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
			},
			keepDirs: []string{"set", "model"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"train", "--set", filepath.Join(out, "set"), "--out", filepath.Join(out, "model"), "--resume", "--epochs", "1", "--scale", "0.25", "--threads", "1"}
			}},
		{name: "train a self-training round on masks without probability maps", code: 1,
			want: []string{filepath.Join("masks", "prob", "00000.png"), "self-training reads the probability maps that predict writes with prob maps on"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				set := prepareInto(t, f, out)
				model := filepath.Join(out, "model")
				if o, err := densify(t, "train", "--set", set, "--out", model, "--epochs", "1", "--scale", "0.25", "--threads", "1"); err != nil {
					t.Fatalf("train: %v\n%s", err, o)
				}
				if o, err := densify(t, "predict", "--model", filepath.Join(model, "model.ckpt"), "--frames", f.seq, "--out", filepath.Join(out, "masks"), "--temporal", "0", "--threads", "1"); err != nil {
					t.Fatalf("predict: %v\n%s", err, o)
				}
			},
			keepDirs: []string{"set", "model", "masks"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"train", "--set", filepath.Join(out, "set"), "--out", filepath.Join(out, "round1"), "--pseudo", filepath.Join(out, "masks"),
					"--init", filepath.Join(out, "model", "model.ckpt"), "--epochs", "1", "--scale", "0.25", "--threads", "1"}
			}},
		{name: "run prepares a damaged set again", code: 0, want: []string{"does not load (", "00000_labels.npy: npy: file has", "preparing it again"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				if o, err := densify(t, append([]string{"run", f.seq, "--out", filepath.Join(out, "work")}, tinyRun...)...); err != nil {
					t.Fatalf("run: %v\n%s", err, o)
				}
				p := filepath.Join(out, "work", "synth01", "prepared", "frames", "00000_labels.npy")
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(p, b[:len(b)/2], 0o644)
			},
			keepDirs: []string{"work"},
			args: func(f *catalogueFixture, out string) []string {
				return append([]string{"run", f.seq, "--out", filepath.Join(out, "work")}, tinyRun...)
			}},
		{name: "uncertainty of a disconnected cluster", code: 1, want: []string{"disc.labels: not a multicut of", "cluster 0 is not connected through E (nodes 0 and 2)"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"uncertainty", "--graph", f.path("disc.graph"), "--labels", f.path("disc.labels"), "--out", filepath.Join(out, "u.csv")}
			}},
		{name: "prepare with the uncertainty of another segmentation", code: 1, want: []string{"u-contra.csv:", "the uncertainty of another segmentation"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"prepare", "--frames", f.seq, "--tracks", f.tracks, "--uncertainty", f.path("u-contra.csv"), "--out", filepath.Join(out, "set")}
			}},
		{name: "segment with a cost model of version 99", code: 1, want: []string{"cm99.json: cost model: model version 99: this densify reads version 1"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"segment", "--tracks", f.tracks, "--model", f.path("cm99.json"), "--out", out}
			}},
		{name: "slurm time abc", code: 1, want: []string{`--time "abc" is not a Slurm time limit`},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"slurm", f.seq, "--out", filepath.Join(out, "work"), "--time", "abc"}
			}},
		{name: "slurm time -1", code: 1, want: []string{`--time "-1" is not a Slurm time limit`},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"slurm", f.seq, "--out", filepath.Join(out, "work"), "--time", "-1"}
			}},
		{name: "slurm mem lots", code: 1, want: []string{`--mem "lots" is not a Slurm memory size`},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"slurm", f.seq, "--out", filepath.Join(out, "work"), "--mem", "lots"}
			}},
		{name: "slurm task flags epochs 0", code: 1, want: []string{"the tasks' densify run would refuse its flags: --epochs 0 is out of range"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"slurm", f.seq, "--out", filepath.Join(out, "work"), "--", "--epochs", "0"}
			}},
		{name: "eval list naming a sequence twice", code: 1, want: []string{"twice.txt:2: the ground truth " + f.gt + " is listed twice (also on line 1)"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--dataset", f.path("twice.txt")}
			}},
		{name: "eval list name with a carriage return", code: 1, want: []string{`cr.txt:1: sequence name "syn\rth01" holds the control character U+000D`},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--dataset", f.path("cr.txt")}
			}},
		{name: "report of a precision of -7e300", code: 1, want: []string{"report: s failed: ", filepath.Join("work", "s", "result.json") + ": result.sparse.precision = -7e300 is beyond ±1e+15", "1 failed (s)"},
			setup: func(t *testing.T, f *catalogueFixture, out string) {
				work := filepath.Join(out, "work")
				os.MkdirAll(filepath.Join(work, "s"), 0o755)
				plan, _ := json.Marshal(map[string]any{"command": "run", "root": f.seq, "variants": []string{"uniform"},
					"sequences": []map[string]string{{"name": "s", "frames_dir": f.seq}}, "options": map[string]any{}})
				os.WriteFile(filepath.Join(work, "plan.json"), plan, 0o644)
				os.WriteFile(filepath.Join(work, "s", "result.json"), []byte(`{"result": {"name": "s", "sparse": {"precision": -7e300, "recall": 0.5, "f": 0.5}}}`), 0o644)
			},
			keepDirs: []string{"work"}, namesReport: true,
			args: func(f *catalogueFixture, out string) []string { return []string{"report", filepath.Join(out, "work")} }},
		{name: "synth seed wrapping", code: 1, want: []string{"--seed 9223372036854775807 with --count 2"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"synth", "--out", filepath.Join(out, "s"), "--seed", "9223372036854775807", "--count", "2"}
			}},
		{name: "track truncated progressive jpeg", code: 1, want: []string{filepath.Join("jpeg-seq", "00005.jpg") + ": progressive JPEG incomplete"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"track", "--frames", f.path("jpeg-seq"), "--out", filepath.Join(out, "t.dat")}
			}},

		// Compatibility with the reference scorer.
		{name: "eval border points as MoSegEval", code: 0, want: []string{"Precision, Recall, F:"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.path("border.dat")}
			}},
		{name: "eval point far outside", code: 1, want: []string{"border-far.dat: track 0, frame 0: point (161, 10) lies outside the 160x120 frames"},
			args: func(f *catalogueFixture, out string) []string {
				return []string{"eval", "--gt", f.gt, "--tracks", f.path("border-far.dat")}
			}},
	}
}
