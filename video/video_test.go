package video

import (
	"image"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/testutil"
	"github.com/densify/densify/trajectory"
)

// smoothTexture returns the w×h window at offset (dx, dy) of a fixed
// blurred-noise texture (box blur 3×3 of uniform noise, period 512), so that
// frames cut at different integer offsets are exact translations.
func smoothTexture(w, h int, dx, dy int) *image.Gray {
	const n = 512
	r := rand.New(rand.NewSource(7))
	base := make([]float64, n*n)
	for i := range base {
		base[i] = r.Float64() * 255
	}
	at := func(x, y int) float64 { return base[((y%n+n)%n)*n+(x%n+n)%n] }
	g := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			s := 0.0
			for j := -1; j <= 1; j++ {
				for i := -1; i <= 1; i++ {
					s += at(x+dx+i+100, y+dy+j+100)
				}
			}
			g.Pix[y*w+x] = uint8(s / 9)
		}
	}
	return g
}

func TestFlowRecoversTranslation(t *testing.T) {
	const w, h = 160, 120
	const u, v = 3, -2
	a := smoothTexture(w, h, 0, 0)
	b := smoothTexture(w, h, -u, -v) // b(x) = a(x − (u, v)): content moves by (u, v)
	for _, m := range Methods {
		f, err := Flow(a, b, m)
		if err != nil {
			t.Fatal(err)
		}
		if f.W != w || f.H != h {
			t.Fatalf("%s: flow %dx%d", m, f.W, f.H)
		}
		var errs []float64
		for y := 20; y < h-20; y++ {
			for x := 20; x < w-20; x++ {
				i := y*w + x
				errs = append(errs, math.Hypot(float64(f.U[i])-u, float64(f.V[i])-v))
			}
		}
		sort.Float64s(errs)
		if med := errs[len(errs)/2]; med > 0.25 {
			t.Errorf("%s: median end-point error %.3f px, want < 0.25", m, med)
		}
	}
	if _, err := Flow(a, image.NewGray(image.Rect(0, 0, 10, 10)), DIS); err == nil {
		t.Error("frames of different sizes accepted")
	}
	if _, err := ParseMethod("lucas"); err == nil {
		t.Error("unknown method accepted")
	}
	if m, err := ParseMethod(" DIS "); err != nil || m != DIS {
		t.Errorf("ParseMethod(DIS) = %v, %v", m, err)
	}
}

func TestToGray(t *testing.T) {
	rgba := image.NewRGBA(image.Rect(2, 3, 4, 4))
	rgba.Pix[0], rgba.Pix[1], rgba.Pix[2], rgba.Pix[3] = 200, 100, 50, 255
	g := ToGray(rgba)
	// 0.299·200 + 0.587·100 + 0.114·50 = 124.2
	if g.Bounds() != image.Rect(0, 0, 2, 1) || g.Pix[0] != 124 {
		t.Errorf("ToGray = %v %v, want 124 at (0,0)", g.Bounds(), g.Pix)
	}
}

// synthFrames writes n PNG frames of a texture translating by (2, 1)
// px/frame and returns their paths.
func synthFrames(t *testing.T, dir string, n, w, h int) []string {
	var paths []string
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, "seq_"+string(rune('0'+i/10))+string(rune('0'+i%10))+".png")
		testutil.WritePNG(t, p, smoothTexture(w, h, -2*i, -i))
		paths = append(paths, p)
	}
	return paths
}

func TestTrackSequenceSynthetic(t *testing.T) {
	dir := t.TempDir()
	paths := synthFrames(t, dir, 5, 128, 96)
	opt := trajectory.DefaultTrackerOptions()
	done := 0
	ts, err := TrackSequence(paths, opt, DIS, func(d, total int) {
		if total != 4 || d != done+1 {
			t.Errorf("progress %d/%d after %d", d, total, done)
		}
		done = d
	})
	if err != nil {
		t.Fatal(err)
	}
	if done != 4 || ts.Frames != 5 {
		t.Fatalf("progress %d, frames %d", done, ts.Frames)
	}
	full := 0
	for _, tk := range ts.Tracks {
		if len(tk.Points) == 5 {
			full++
			p0, p4 := tk.Points[0], tk.Points[4]
			if math.Abs(p4.X-p0.X-8) > 0.5 || math.Abs(p4.Y-p0.Y-4) > 0.5 {
				t.Errorf("track moved (%.2f, %.2f) in 4 frames, want (8, 4)", p4.X-p0.X, p4.Y-p0.Y)
			}
		}
	}
	// 16×12 cells; interior ones (away from the right/bottom border the
	// content leaves through) should survive all 5 frames.
	if full < 100 {
		t.Errorf("%d full-length tracks of %d, want ≥ 100", full, len(ts.Tracks))
	}
}

func TestReadFramesBadInput(t *testing.T) {
	dir := t.TempDir()
	paths := synthFrames(t, dir, 3, 64, 48)
	if _, err := ReadFrames(paths); err != nil {
		t.Fatal(err)
	}
	opt := trajectory.DefaultTrackerOptions()

	// Missing frame in the numbering: the folder listing names the gap, and
	// a missing file in a path list is named.
	gap := t.TempDir()
	for _, i := range []int{0, 1, 3} {
		testutil.WritePNG(t, filepath.Join(gap, "f_"+string(rune('0'+i))+".png"), smoothTexture(32, 32, 0, 0))
	}
	if _, err := dataset.ListFrames(gap); err == nil {
		t.Error("gap in the numbering accepted by ListFrames")
	}
	missing := append(append([]string{}, paths[:2]...), filepath.Join(dir, "nope.png"))
	_, err := TrackSequence(missing, opt, DIS, nil)
	if err == nil || !strings.Contains(err.Error(), "nope.png") {
		t.Errorf("missing frame: %v", err)
	}

	// Different sizes.
	odd := filepath.Join(dir, "odd.png")
	testutil.WritePNG(t, odd, smoothTexture(60, 48, 0, 0))
	_, err = TrackSequence([]string{paths[0], paths[1], odd}, opt, DIS, nil)
	if err == nil || !strings.Contains(err.Error(), "odd.png") || !strings.Contains(err.Error(), "60x48") {
		t.Errorf("different sizes: %v", err)
	}

	// Corrupt: garbage, and a PNG truncated after its header (the size check
	// passes, decoding fails).
	junk := filepath.Join(dir, "junk.png")
	os.WriteFile(junk, []byte("this is not an image"), 0o644)
	_, err = TrackSequence([]string{paths[0], junk}, opt, DIS, nil)
	if err == nil || !strings.Contains(err.Error(), "junk.png") {
		t.Errorf("garbage frame: %v", err)
	}
	data, _ := os.ReadFile(paths[2])
	trunc := filepath.Join(dir, "trunc.png")
	os.WriteFile(trunc, data[:len(data)/2], 0o644)
	_, err = TrackSequence([]string{paths[0], paths[1], trunc}, opt, DIS, nil)
	if err == nil || !strings.Contains(err.Error(), "trunc.png") {
		t.Errorf("truncated frame: %v", err)
	}

	// Too few frames, bad method, bad options.
	if _, err := TrackSequence(paths[:1], opt, DIS, nil); err == nil {
		t.Error("one frame accepted")
	}
	if _, err := TrackSequence(paths, opt, "lk", nil); err == nil {
		t.Error("unknown method accepted")
	}
	opt.Spacing = 0
	if _, err := TrackSequence(paths, opt, DIS, nil); err == nil {
		t.Error("spacing 0 accepted")
	}
}

// davisFrames returns the first n frame paths of a DAVIS sequence.
func davisFrames(tb testing.TB, seq string, n int) []string {
	root := testutil.DAVISDev(tb)
	paths, err := dataset.ListFrames(filepath.Join(root, "JPEGImages", "480p", seq))
	if err != nil {
		tb.Fatal(err)
	}
	if n > 0 && len(paths) > n {
		paths = paths[:n]
	}
	return paths
}

// objectCoverage is the fraction of (frame, grid cell) pairs holding an
// object pixel of the DAVIS annotation that also hold a trajectory point.
func objectCoverage(t *testing.T, seq string, ts *trajectory.TrackSet, spacing int) float64 {
	root := testutil.DAVISDev(t)
	gt, err := dataset.ReadDAVISAnnotations(filepath.Join(root, "Annotations", "480p", seq))
	if err != nil {
		t.Fatal(err)
	}
	return ObjectCoverage(ts, gt, spacing)
}

func TestTrackDAVISBlackswan(t *testing.T) {
	if testing.Short() {
		t.Skip("DAVIS tracking in -short mode")
	}
	paths := davisFrames(t, "blackswan", 6)
	frames, err := ReadFrames(paths)
	if err != nil {
		t.Fatal(err)
	}
	opt := trajectory.DefaultTrackerOptions()
	ts, st, err := Track(frames, opt, DefaultMethod, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ts.Frames != 6 || len(ts.Tracks) < 3000 {
		t.Errorf("%d frames, %d tracks; want 6 and ≥ 3000", ts.Frames, len(ts.Tracks))
	}
	dens := 0.0
	for _, c := range st.Covered {
		dens += c
	}
	dens /= float64(len(st.Covered))
	cov := objectCoverage(t, "blackswan", ts, opt.Spacing)
	t.Logf("blackswan 6 frames: %d tracks, density %.3f, object coverage %.3f, stops %v", len(ts.Tracks), dens, cov, st.Stopped)
	if dens < 0.5 || cov < 0.7 {
		t.Errorf("density %.3f (want ≥ 0.5), object coverage %.3f (want ≥ 0.7)", dens, cov)
	}
}

// The tracker describes each method's parameters (the pipeline stamps them):
// DIS by DefaultDIS, so a change of its defaults changes the description.
func TestTrackerFlowParams(t *testing.T) {
	dis := Tracker{}.FlowParams(string(DIS))
	if !strings.Contains(dis, "FinestScale:0") || !strings.Contains(dis, "PatchSize:12") {
		t.Errorf("DIS described as %q, want DefaultDIS's fields", dis)
	}
	if fb := (Tracker{}).FlowParams(string(Farneback)); fb == dis || !strings.Contains(fb, "WinSize:31") {
		t.Errorf("Farnebäck described as %q", fb)
	}
	if s := (Tracker{}).FlowParams("lucas"); s != "" {
		t.Errorf("unknown method described as %q", s)
	}
}

// The flows `densify track --flows` keeps are the fields that prediction's
// temporal fusion (DenseFlow on the decoded frames) would compute, bit for
// bit, so reading them changes no mask: on PNG frames and, when the DAVIS
// development data is there, on JPEG frames.
func TestKeptFlowsAreTheFusionsFlows(t *testing.T) {
	check := func(t *testing.T, frames string, n int) {
		dir := t.TempDir()
		flows := filepath.Join(dir, "flows")
		_, err := TrackFiles(TrackFilesOptions{Frames: frames, Out: filepath.Join(dir, "t.dat"), Method: DIS,
			Tracker: trajectory.DefaultTrackerOptions(), Flows: flows})
		if err != nil {
			t.Fatal(err)
		}
		all, err := dataset.ListFrames(frames)
		if err != nil {
			t.Fatal(err)
		}
		paths := all[:n]
		df := DenseFlow{Method: DIS}
		w, h, _ := dataset.ImageSize(paths[0])
		m, err := trajectory.NewFlowManifest(all, df.Description(), w, h)
		if err != nil {
			t.Fatal(err)
		}
		store, err := trajectory.OpenFlowStore(flows, m)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < n; i++ {
			a, _ := dataset.ReadImage(paths[i])
			b, _ := dataset.ReadImage(paths[i+1])
			for _, p := range [][2]int{{i, i + 1}, {i + 1, i}} {
				x, y := a, b
				if p[0] > p[1] {
					x, y = b, a
				}
				want, err := df.Flow(x, y)
				if err != nil {
					t.Fatal(err)
				}
				got, err := store.Get(p[0], p[1])
				if err != nil {
					t.Fatal(err)
				}
				for j := range want.U {
					if got.U[j] != want.U[j] || got.V[j] != want.V[j] {
						t.Fatalf("F_%d→%d pixel %d: kept (%v, %v), computed (%v, %v)", p[0], p[1], j, got.U[j], got.V[j], want.U[j], want.V[j])
					}
				}
			}
		}
	}
	t.Run("png", func(t *testing.T) {
		dir := t.TempDir()
		synthFrames(t, dir, 4, 128, 96)
		check(t, dir, 4)
	})
	t.Run("davis", func(t *testing.T) {
		if testing.Short() {
			t.Skip("DAVIS flows in -short mode")
		}
		root := testutil.DAVISDev(t) // skips without the data
		src := filepath.Join(root, "JPEGImages", "480p", "car-shadow")
		paths, err := dataset.ListFrames(src)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, p := range paths[:3] {
			if err := os.Symlink(p, filepath.Join(dir, filepath.Base(p))); err != nil {
				t.Fatal(err)
			}
		}
		check(t, dir, 3)
	})
}
