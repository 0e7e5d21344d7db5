package synth

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/eval"
	"github.com/densify/densify/trajectory"
)

// clean is the default sequence without noise and illumination change, so
// that colours can be compared exactly with the textures.
var (
	cleanOnce sync.Once
	cleanSeq  *Sequence
)

func cleanParams() Params {
	p := DefaultParams()
	p.Noise, p.Illumination, p.Blur = 0, 0, 0
	return p
}

func clean(t *testing.T) *Sequence {
	t.Helper()
	cleanOnce.Do(func() {
		s, err := Generate(cleanParams())
		if err != nil {
			t.Fatal(err)
		}
		cleanSeq = s
	})
	if cleanSeq == nil {
		t.Fatal("generation failed")
	}
	return cleanSeq
}

func TestValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []func(*Params){
		func(p *Params) { p.Width = 8 },
		func(p *Params) { p.Height = 5000 },
		func(p *Params) { p.Frames = 1 },
		func(p *Params) { p.Objects = 0 },
		func(p *Params) { p.Objects = MaxObjects + 1 },
		func(p *Params) { p.GTEvery = 0 },
		func(p *Params) { p.Noise = math.NaN() },
		func(p *Params) { p.Illumination = -0.1 },
		func(p *Params) { p.Blur = 1.5 },
	}
	for i, f := range bad {
		p := DefaultParams()
		f(&p)
		if _, err := Generate(p); err == nil {
			t.Errorf("case %d: %+v accepted", i, p)
		}
	}
}

func frameBytes(s *Sequence) []byte {
	var b []byte
	for f := range s.Frames {
		b = append(b, s.Frames[f].Pix...)
		b = append(b, s.Regions[f]...)
	}
	return b
}

func TestDeterminism(t *testing.T) {
	p := DefaultParams()
	p.Width, p.Height, p.Frames, p.Objects = 160, 120, 8, 3
	a, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(p)
	if !bytes.Equal(frameBytes(a), frameBytes(b)) {
		t.Fatal("same seed gave different frames")
	}
	ta, tb := a.GroundTruthTracks(6), b.GroundTruthTracks(6)
	var ea, eb bytes.Buffer
	if err := trajectory.EncodeTracks(&ea, ta); err != nil {
		t.Fatal(err)
	}
	trajectory.EncodeTracks(&eb, tb)
	if !bytes.Equal(ea.Bytes(), eb.Bytes()) {
		t.Fatal("same seed gave different tracks")
	}
	p.Seed++
	c, _ := Generate(p)
	if bytes.Equal(frameBytes(a), frameBytes(c)) {
		t.Fatal("different seeds gave identical frames")
	}
	// Frames of one sequence differ (the scene moves).
	if bytes.Equal(a.Frames[0].Pix, a.Frames[1].Pix) {
		t.Fatal("frames 0 and 1 identical")
	}
}

// TestRegionsMatchPixels: with noise and illumination off every pixel is the
// rounded texture colour of the layer the layer map names, the region map is
// that layer's object, and object pixels really differ from the background
// that would be visible without the object.
func TestRegionsMatchPixels(t *testing.T) {
	s := clean(t)
	W := s.Width
	for _, f := range []int{0, 13, 29} {
		var objPix, objDiff int
		for y := 0; y < s.Height; y++ {
			for x := 0; x < W; x++ {
				i := y*W + x
				li := int(s.layers[f][i])
				L := &s.sc.layers[li]
				if int(s.Regions[f][i]) != L.region {
					t.Fatalf("frame %d (%d,%d): region %d, layer %d of region %d", f, x, y, s.Regions[f][i], li, L.region)
				}
				u, v := L.inv[f].apply(float64(x), float64(y))
				if !L.shape.contains(u, v) {
					t.Fatalf("frame %d (%d,%d): layer %d does not cover the pixel", f, x, y, li)
				}
				r, g, b := L.tex.sample(u, v)
				px := s.Frames[f].Pix[4*i : 4*i+3]
				for c, want := range []float32{r, g, b} {
					if d := math.Abs(float64(px[c]) - math.Round(float64(want))); d > 0 {
						t.Fatalf("frame %d (%d,%d) channel %d: pixel %d, texture %v", f, x, y, c, px[c], want)
					}
				}
				if L.region > 0 {
					objPix++
					bu, bv := s.sc.layers[0].inv[f].apply(float64(x), float64(y))
					br, bg, bb := s.sc.layers[0].tex.sample(bu, bv)
					if math.Abs(float64(r-br))+math.Abs(float64(g-bg))+math.Abs(float64(b-bb)) > 30 {
						objDiff++
					}
				}
			}
		}
		if objPix < 1000 {
			t.Errorf("frame %d: only %d object pixels", f, objPix)
		}
		if float64(objDiff) < 0.8*float64(objPix) {
			t.Errorf("frame %d: only %d of %d object pixels differ from the background texture", f, objDiff, objPix)
		}
	}
}

// bilinear samples channel c of frame f at (x, y).
func bilinear(s *Sequence, f int, x, y float64) [3]float64 {
	ix, iy := int(math.Floor(x)), int(math.Floor(y))
	ix, iy = min(max(ix, 0), s.Width-2), min(max(iy, 0), s.Height-2)
	ax, ay := x-float64(ix), y-float64(iy)
	var out [3]float64
	pix := s.Frames[f].Pix
	for c := 0; c < 3; c++ {
		at := func(xx, yy int) float64 { return float64(pix[4*(yy*s.Width+xx)+c]) }
		out[c] = (1-ax)*(1-ay)*at(ix, iy) + ax*(1-ay)*at(ix+1, iy) + (1-ax)*ay*at(ix, iy+1) + ax*ay*at(ix+1, iy+1)
	}
	return out
}

func colourDist(a, b [3]float64) float64 {
	return (math.Abs(a[0]-b[0]) + math.Abs(a[1]-b[1]) + math.Abs(a[2]-b[2])) / 3
}

// TestGroundTruthTracks: tracks are contiguous, labelled with the region map
// at their rounded positions in every frame, keep their colour (much more
// than random point pairs), cover every region, start at integer grid
// points and move by the true flow.
func TestGroundTruthTracks(t *testing.T) {
	s := clean(t)
	ts := s.GroundTruthTracks(8)
	if ts.Frames != len(s.Frames) {
		t.Fatalf("Frames = %d", ts.Frames)
	}
	if err := ts.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(ts.Tracks) < 1000 {
		t.Fatalf("only %d tracks", len(ts.Tracks))
	}
	W := s.Width
	perRegion := make([]int, len(s.Colors))
	var n, bad int
	var along, random float64
	var alongN int
	flows := map[int][2][]float32{}
	for k, tr := range ts.Tracks {
		if len(tr.Points) < 2 {
			t.Fatalf("track %d has %d points", k, len(tr.Points))
		}
		perRegion[tr.Label]++
		first := bilinear(s, tr.Points[0].Frame, tr.Points[0].X, tr.Points[0].Y)
		for j, p := range tr.Points {
			if p.Frame != tr.Points[0].Frame+j {
				t.Fatalf("track %d not contiguous", k)
			}
			rx, ry := int(float32(p.X)+0.5), int(float32(p.Y)+0.5)
			n++
			if int(s.Regions[p.Frame][ry*W+rx]) != tr.Label {
				bad++
			}
			if j > 0 {
				along += colourDist(first, bilinear(s, p.Frame, p.X, p.Y))
				// a random other track's point in the same frame
				o := ts.Tracks[(k*7919+j*104729)%len(ts.Tracks)]
				if q, ok := o.At(p.Frame); ok {
					random += colourDist(first, bilinear(s, q.Frame, q.X, q.Y))
				} else {
					random += colourDist(first, bilinear(s, p.Frame, float64((k*31)%W), float64((k*17)%s.Height)))
				}
				alongN++
			}
		}
		// True flow at the integer seed point.
		p0, p1 := tr.Points[0], tr.Points[1]
		if p0.X != math.Trunc(p0.X) || p0.Y != math.Trunc(p0.Y) {
			t.Fatalf("track %d starts off-grid at (%v,%v)", k, p0.X, p0.Y)
		}
		fl, ok := flows[p0.Frame]
		if !ok {
			u, v := s.TrueFlow(p0.Frame)
			fl = [2][]float32{u, v}
			flows[p0.Frame] = fl
		}
		i := int(p0.Y)*W + int(p0.X)
		if math.Abs(p1.X-p0.X-float64(fl[0][i])) > 1e-3 || math.Abs(p1.Y-p0.Y-float64(fl[1][i])) > 1e-3 {
			t.Fatalf("track %d moves by (%v,%v), true flow (%v,%v)", k, p1.X-p0.X, p1.Y-p0.Y, fl[0][i], fl[1][i])
		}
	}
	if bad != 0 {
		t.Errorf("%d of %d points on a pixel of another region", bad, n)
	}
	for r, c := range perRegion {
		if c < 20 {
			t.Errorf("region %d has only %d tracks", r, c)
		}
	}
	along /= float64(alongN)
	random /= float64(alongN)
	t.Logf("%d tracks, %d points, per region %v; mean colour change along tracks %.2f, between random points %.2f",
		len(ts.Tracks), n, perRegion, along, random)
	if along > 6 || along > random/5 {
		t.Errorf("colour is not constant along tracks: %.2f (random pairs %.2f)", along, random)
	}
}

// TestThinParts: in every frame some object pixels lie on a limb less than
// 11 px thick: within 5 px on both sides (horizontally, vertically or
// diagonally) there are pixels of another region.
func TestThinParts(t *testing.T) {
	s := clean(t)
	W, H := s.Width, s.Height
	dirs := [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}}
	least := math.MaxInt
	for f := range s.Frames {
		reg := s.Regions[f]
		thin := 0
		for y := 5; y < H-5; y++ {
			for x := 5; x < W-5; x++ {
				i := y*W + x
				if reg[i] == 0 || !s.sc.layers[s.layers[f][i]].limb {
					continue
				}
				for _, d := range dirs {
					other := func(sign int) bool {
						for k := 1; k <= 5; k++ {
							if reg[(y+sign*k*d[1])*W+x+sign*k*d[0]] != reg[i] {
								return true
							}
						}
						return false
					}
					if other(1) && other(-1) {
						thin++
						break
					}
				}
			}
		}
		if thin < 20 {
			t.Errorf("frame %d: only %d thin-part pixels", f, thin)
		}
		least = min(least, thin)
	}
	t.Logf("at least %d thin-part pixels per frame", least)
}

// TestOcclusions: with the default parameters objects hide each other: some
// pixels inside the silhouette of one object show another object.
func TestOcclusions(t *testing.T) {
	s := clean(t)
	W := s.Width
	hidden := 0
	for f := range s.Frames {
		for li := 1; li < len(s.sc.layers); li++ {
			r := s.sc.layers[li].region
			for y := 0; y < s.Height; y++ {
				for x := 0; x < W; x++ {
					g := s.Regions[f][y*W+x]
					if g != 0 && int(g) != r && s.sc.silhouette(f, li, float64(x), float64(y)) {
						hidden++
					}
				}
			}
		}
	}
	t.Logf("%d occluded object pixels (summed over layers and frames)", hidden)
	if hidden < 500 {
		t.Errorf("only %d pixels of one object hidden by another", hidden)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	p := DefaultParams()
	p.Width, p.Height, p.Frames, p.GTEvery, p.SoftBoundary = 96, 64, 7, 3, true
	s, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	long := p
	long.Frames = 9
	sl, _ := Generate(long)
	if err := sl.Write(root, "synth01"); err != nil { // overwritten below
		t.Fatal(err)
	}
	if err := s.Write(root, "synth01"); err != nil {
		t.Fatal(err)
	}
	frames, err := dataset.ListFrames(filepath.Join(root, "synth01"))
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != p.Frames || filepath.Base(frames[0]) != "synth01_0001.png" {
		t.Fatalf("frames %v", frames)
	}
	f, err := os.Open(frames[6])
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < p.Height; y++ {
		for x := 0; x < p.Width; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			o := s.Frames[6].PixOffset(x, y)
			if uint8(r>>8) != s.Frames[6].Pix[o] || uint8(g>>8) != s.Frames[6].Pix[o+1] || uint8(b>>8) != s.Frames[6].Pix[o+2] {
				t.Fatalf("frame 7 pixel (%d,%d) differs after writing", x, y)
			}
		}
	}
	gt, err := dataset.ReadDef(DefPath(root, "synth01"))
	if err != nil {
		t.Fatal(err)
	}
	if gt.TotalFrames != p.Frames || len(gt.Colors) != p.Objects+1 || gt.Colors[0] != 0 || gt.Colors[1] != 0xFF0000 {
		t.Fatalf("read back %d frames, colours %v", gt.TotalFrames, gt.Colors)
	}
	want := []int{0, 3, 6}
	if len(gt.Frames) != len(want) {
		t.Fatalf("%d labelled frames", len(gt.Frames))
	}
	soft := 0
	for k, lf := range gt.Frames {
		if lf.Frame != want[k] || lf.File != LabelName("synth01", want[k]) {
			t.Fatalf("labelled frame %d: %d %s", k, lf.Frame, lf.File)
		}
		for i, r := range lf.Region {
			if r != int(s.Regions[lf.Frame][i]) {
				t.Fatalf("frame %d pixel %d: region %d read back, %d generated", lf.Frame, i, r, s.Regions[lf.Frame][i])
			}
			if lf.Prob[i] < 1 {
				soft++
				if math.Abs(lf.Prob[i]-boundaryProb) > 1e-9 {
					t.Fatalf("probability %v", lf.Prob[i])
				}
			}
		}
	}
	if soft == 0 {
		t.Fatal("SoftBoundary wrote no probability below 1")
	}
}

func TestCorrupt(t *testing.T) {
	s := clean(t)
	ts := s.GroundTruthTracks(8)
	var before bytes.Buffer
	trajectory.EncodeTracks(&before, ts)
	c := Corrupt(ts, 0.2, 3)
	var after bytes.Buffer
	trajectory.EncodeTracks(&after, ts)
	if !bytes.Equal(before.Bytes(), after.Bytes()) {
		t.Fatal("Corrupt modified its input")
	}
	changed := 0
	for i := range ts.Tracks {
		if c.Tracks[i].Label != ts.Tracks[i].Label {
			changed++
		}
		if len(c.Tracks[i].Points) != len(ts.Tracks[i].Points) {
			t.Fatal("points changed")
		}
	}
	if want := int(math.Round(0.2 * float64(len(ts.Tracks)))); changed != want {
		t.Fatalf("%d labels changed, want %d", changed, want)
	}
	same := Corrupt(ts, 0.2, 3)
	other := Corrupt(ts, 0.2, 4)
	diffSame, diffOther := 0, 0
	for i := range ts.Tracks {
		if same.Tracks[i].Label != c.Tracks[i].Label {
			diffSame++
		}
		if other.Tracks[i].Label != c.Tracks[i].Label {
			diffOther++
		}
	}
	if diffSame != 0 || diffOther == 0 {
		t.Fatalf("determinism: %d differences with the same seed, %d with another", diffSame, diffOther)
	}
	if z := Corrupt(ts, 0, 1); len(z.Tracks) != len(ts.Tracks) || z.Tracks[0].Label != ts.Tracks[0].Label {
		t.Fatal("fraction 0 changed labels")
	}
	// One label only: corrupted tracks get a new one.
	one := &trajectory.TrackSet{Frames: 2, Tracks: []trajectory.Track{
		{Label: 4, Points: []trajectory.Point{{X: 0, Y: 0, Frame: 0}}},
		{Label: 4, Points: []trajectory.Point{{X: 1, Y: 0, Frame: 0}}},
	}}
	oc := Corrupt(one, 0.5, 1)
	if n := btoi(oc.Tracks[0].Label != 4) + btoi(oc.Tracks[1].Label != 4); n != 1 {
		t.Fatalf("%d of 2 single-label tracks changed", n)
	}

	// Scored with the FBMS protocol: ground truth perfect, corrupted worse.
	gt := s.GroundTruth("synth01")
	rg, err := eval.Sequence(gt, ts, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := eval.Sequence(gt, c, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ground truth: P %.4f R %.4f F %.4f objects %d/%d; corrupted 20%%: P %.4f R %.4f F %.4f",
		rg.Precision, rg.Recall, rg.F, rg.Objects, rg.Visible, rc.Precision, rc.Recall, rc.F)
	if rg.F != 1 || rg.Objects != len(s.Colors)-1 {
		t.Errorf("ground-truth tracks score F = %v, objects %d", rg.F, rg.Objects)
	}
	r5, err := eval.Sequence(gt, Corrupt(ts, 0.05, 3), eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("corrupted 5%%: F %.4f", r5.F)
	if !(rc.F < r5.F && r5.F < 0.99 && rc.F > 0.2) {
		t.Errorf("corrupted tracks score F = %v (5%%), %v (20%%)", r5.F, rc.F)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func BenchmarkGenerate(b *testing.B) {
	p := DefaultParams()
	for i := 0; i < b.N; i++ {
		if _, err := Generate(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(p.Frames*b.N)/b.Elapsed().Seconds(), "frames/s")
}

func BenchmarkGroundTruthTracks(b *testing.B) {
	s, err := Generate(DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		n = len(s.GroundTruthTracks(8).Tracks)
	}
	b.ReportMetric(float64(n), "tracks")
}

// TestTracksAgreeAcrossSeeds: for several scenes (1–3 objects, other sizes)
// every ground-truth track point lies on a pixel of its own region and the
// articulated object always has thin limbs visible somewhere.
func TestTracksAgreeAcrossSeeds(t *testing.T) {
	for seed := int64(2); seed <= 5; seed++ {
		p := cleanParams()
		p.Seed, p.Objects, p.Width, p.Height, p.Frames = seed*7, int(seed%3)+1, 200+int(seed)*10, 150, 15
		s, err := Generate(p)
		if err != nil {
			t.Fatal(err)
		}
		ts := s.GroundTruthTracks(5 + int(seed))
		bad, n, limb := 0, 0, 0
		for _, tr := range ts.Tracks {
			for _, q := range tr.Points {
				i := int(float32(q.Y)+0.5)*s.Width + int(float32(q.X)+0.5)
				n++
				if int(s.Regions[q.Frame][i]) != tr.Label {
					bad++
				}
			}
		}
		for f := range s.Frames {
			for _, li := range s.layers[f] {
				if s.sc.layers[li].limb {
					limb++
				}
			}
		}
		if bad != 0 || n < 1000 || limb == 0 {
			t.Errorf("seed %d: %d of %d track points on another region, %d limb pixels", p.Seed, bad, n, limb)
		}
	}
}

// layersOf returns the indices of the layers named part.
func layersOf(s *Sequence, part string) []int {
	var out []int
	for li, L := range s.sc.layers {
		if L.part == part {
			out = append(out, li)
		}
	}
	return out
}

// world returns the background (world) coordinates of the image point that
// local point (u, v) of layer li occupies in frame f.
func world(s *Sequence, li, f int, u, v float64) (float64, float64) {
	x, y := s.sc.layers[li].fwd[f].apply(u, v)
	return s.sc.layers[0].inv[f].apply(x, y)
}

// TestWalkerLimbs: object 1 is a walker whose limbs are thin but trackable
// (capsules 5–10 px wide at the default size, visible in every frame) and
// swing relative to the torso: every thigh's angle in torso coordinates
// changes by more than 0.4 rad over the sequence, and the two legs move in
// opposite phase (their angles differ by more than 0.3 rad in some frame).
func TestWalkerLimbs(t *testing.T) {
	s := clean(t)
	torso := layersOf(s, "torso")
	thighs := layersOf(s, "thigh")
	if len(torso) != 1 || len(thighs) != 2 || len(layersOf(s, "shin")) != 2 || len(layersOf(s, "forearm")) != 2 {
		t.Fatalf("walker parts: torso %v, thighs %v", torso, thighs)
	}
	for li, L := range s.sc.layers {
		if !L.limb {
			continue
		}
		c := L.shape.(capsule)
		if w := 2 * c.r; w < 5 || w > 10 {
			t.Errorf("limb %d (%s) is %.1f px wide, want 5..10", li, L.part, w)
		}
	}
	// angle of the thigh axis in torso coordinates
	angle := func(li, f int) float64 {
		m := s.sc.layers[torso[0]].inv[f].then(s.sc.layers[li].fwd[f])
		return math.Atan2(m.c, m.a)
	}
	maxDiff := 0.0
	for _, li := range thighs {
		lo, hi := math.Inf(1), math.Inf(-1)
		for f := range s.Frames {
			a := angle(li, f)
			lo, hi = math.Min(lo, a), math.Max(hi, a)
		}
		if hi-lo < 0.4 {
			t.Errorf("thigh %d swings only %.2f rad relative to the torso", li, hi-lo)
		}
	}
	for f := range s.Frames {
		maxDiff = math.Max(maxDiff, math.Abs(angle(thighs[0], f)-angle(thighs[1], f)))
	}
	if maxDiff < 0.3 {
		t.Errorf("the legs never differ by more than %.2f rad", maxDiff)
	}
	for f := range s.Frames {
		limbPix := 0
		for _, li := range s.layers[f] {
			if s.sc.layers[li].limb {
				limbPix++
			}
		}
		if limbPix < 200 {
			t.Errorf("frame %d: %d limb pixels visible", f, limbPix)
		}
	}
}

// TestStanceFootMovesWithBackground: during a stance phase the foot (the end
// of a shin) rests on the ground: its world position moves by less than
// 0.01 px per frame for at least 5 consecutive frames, while the torso moves
// by more than 2 px per frame relative to the background (similar motion of
// object part and background for a while).
func TestStanceFootMovesWithBackground(t *testing.T) {
	s := clean(t)
	torso := layersOf(s, "torso")[0]
	for f := 1; f < len(s.Frames); f++ {
		x0, y0 := world(s, torso, f-1, 0, 0)
		x1, y1 := world(s, torso, f, 0, 0)
		if d := math.Hypot(x1-x0, y1-y0); d < 2 {
			t.Fatalf("frame %d: the torso moves only %.2f px relative to the background", f, d)
		}
	}
	for _, li := range layersOf(s, "shin") {
		l := s.sc.layers[li].shape.(capsule).l
		run, best := 0, 0
		for f := 1; f < len(s.Frames); f++ {
			x0, y0 := world(s, li, f-1, l, 0)
			x1, y1 := world(s, li, f, l, 0)
			if math.Hypot(x1-x0, y1-y0) < 0.01 {
				run++
			} else {
				run = 0
			}
			best = max(best, run)
		}
		if best < 5 {
			t.Errorf("shin %d: the foot rests for at most %d consecutive frames", li, best)
		}
	}
}

// TestParkedObject: object 2 stands still in the world (moves exactly as the
// background) for the first 30 % of the sequence, then drives off at more
// than 1.5 px per frame relative to the background.
func TestParkedObject(t *testing.T) {
	s := clean(t)
	var body int
	for li, L := range s.sc.layers {
		if L.region == 2 && L.part == "body" {
			body = li
		}
	}
	if body == 0 {
		t.Fatal("no body of object 2")
	}
	still := int(0.3 * float64(len(s.Frames)-1))
	x0, y0 := world(s, body, 0, 0, 0)
	for f := 1; f <= still; f++ {
		x, y := world(s, body, f, 0, 0)
		if d := math.Hypot(x-x0, y-y0); d > 1e-9 {
			t.Fatalf("frame %d: parked object moved %.3g px in the world", f, d)
		}
	}
	n := len(s.Frames) - 1
	xa, ya := world(s, body, n-1, 0, 0)
	xb, yb := world(s, body, n, 0, 0)
	if d := math.Hypot(xb-xa, yb-ya); d < 1.5 {
		t.Errorf("at the end object 2 moves only %.2f px per frame relative to the background", d)
	}
}

// TestDisocclusion: background surface hidden in frame f becomes visible in
// frame f+1 (a pixel showing the background in f+1 whose scene point was
// behind another layer in f), also behind the limbs; and torso surface
// hidden by the near arm is uncovered as the arm swings.
func TestDisocclusion(t *testing.T) {
	s := clean(t)
	W, H := s.Width, s.Height
	torso := layersOf(s, "torso")[0]
	var total, behindLimb, torsoUncovered int
	for f := 0; f+1 < len(s.Frames); f++ {
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				li := int(s.layers[f+1][y*W+x])
				if li != 0 && li != torso {
					continue
				}
				u, v := s.sc.layers[li].inv[f+1].apply(float64(x), float64(y))
				px, py := s.sc.layers[li].fwd[f].apply(u, v)
				if px < 0 || py < 0 || px > float64(W-1) || py > float64(H-1) {
					continue
				}
				before, _, _ := s.sc.front(f, px, py)
				if before == li {
					continue
				}
				if li == torso {
					torsoUncovered++
					continue
				}
				total++
				if s.sc.layers[before].limb {
					behindLimb++
				}
			}
		}
	}
	t.Logf("disoccluded background pixels %d (%d behind limbs), torso pixels uncovered %d", total, behindLimb, torsoUncovered)
	if total < 2000 || behindLimb < 300 || torsoUncovered < 50 {
		t.Errorf("disoccluded background pixels %d (%d behind limbs), torso pixels uncovered %d", total, behindLimb, torsoUncovered)
	}
}

// TestMotionBlur: a blurred frame is the mean of the sharp renders at the
// sampled exposure times; at a pixel that shows the background at every
// sampled time, it is the mean of the background texture at the point's
// positions, and the blur lowers the contrast across moving limb edges.
func TestMotionBlur(t *testing.T) {
	p := cleanParams()
	sharp := clean(t)
	p.Blur = 0.5
	blurred, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	f := 13
	n := blurSamples(p.Blur)
	if n != 5 {
		t.Fatalf("%d blur samples for blur 0.5, want 5", n)
	}
	var poses []pose
	for k := 0; k < n; k++ {
		poses = append(poses, blurred.sc.poseAt(float64(f)+p.Blur*(float64(k)/float64(n-1)-0.5)))
	}
	W := sharp.Width
	checked := 0
	var edgeSharp, edgeBlur float64
	for y := 1; y < sharp.Height-1; y++ {
		for x := 1; x < W-1; x++ {
			var sum [3]float64
			allBG := true
			for k := range poses {
				li, u, v := blurred.sc.frontPose(&poses[k], float64(x), float64(y))
				r, g, b := blurred.sc.layers[li].tex.sample(u, v)
				sum[0], sum[1], sum[2] = sum[0]+float64(r), sum[1]+float64(g), sum[2]+float64(b)
				allBG = allBG && li == 0
			}
			i := 4 * (y*W + x)
			if allBG && checked < 2000 {
				checked++
				for c := 0; c < 3; c++ {
					if d := math.Abs(float64(blurred.Frames[f].Pix[i+c]) - sum[c]/float64(n)); d > 0.5+1e-3 {
						t.Fatalf("(%d,%d) channel %d: %d, mean of the samples %.2f", x, y, c, blurred.Frames[f].Pix[i+c], sum[c]/float64(n))
					}
				}
			}
			// horizontal contrast at limb edges of the sharp frame
			a, b := sharp.layers[f][y*W+x], sharp.layers[f][y*W+x+1]
			if a != b && (sharp.sc.layers[a].limb || sharp.sc.layers[b].limb) {
				for c := 0; c < 3; c++ {
					edgeSharp += math.Abs(float64(sharp.Frames[f].Pix[i+c]) - float64(sharp.Frames[f].Pix[i+4+c]))
					edgeBlur += math.Abs(float64(blurred.Frames[f].Pix[i+c]) - float64(blurred.Frames[f].Pix[i+4+c]))
				}
			}
		}
	}
	if checked < 2000 {
		t.Fatalf("only %d pure background pixels", checked)
	}
	if !(edgeBlur < 0.9*edgeSharp) {
		t.Errorf("contrast at limb edges %.0f blurred vs %.0f sharp", edgeBlur, edgeSharp)
	}
}
