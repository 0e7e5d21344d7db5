package uncertainty

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/trajectory"
)

func TestEncodeCSV(t *testing.T) {
	g, labels := handGraph()
	r, err := Compute(g, labels, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodeCSV(&buf, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 7 || lines[0] != "node,label,gamma,uncertainty,likelihood_uncertainty,target" {
		t.Fatalf("CSV:\n%s", buf.String())
	}
	if !strings.HasPrefix(lines[1], "0,0,inf,0,") || !strings.HasSuffix(lines[1], ",-1") {
		t.Errorf("node 0 row %q: want γ inf, u 0, target −1", lines[1])
	}
	if !strings.HasPrefix(lines[3], "2,0,1,") || !strings.HasSuffix(lines[3], ",7") {
		t.Errorf("node 2 row %q: want γ 1 toward cluster 7", lines[3])
	}
	dir := t.TempDir()
	for _, name := range []string{"c.csv", "c.json"} {
		if err := WriteClusters(filepath.Join(dir, name), r); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "c.json"))
	if !strings.Contains(string(data), `"mean_uncertainty"`) || !strings.Contains(string(data), `"label": 7`) {
		t.Errorf("clusters JSON:\n%s", data)
	}
}

func TestHeatmap(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 40, 30))
	ts := &trajectory.TrackSet{Frames: 2, Tracks: []trajectory.Track{
		{Points: []trajectory.Point{{X: 10, Y: 10, Frame: 0}, {X: 11, Y: 10, Frame: 1}}},
		{Points: []trajectory.Point{{X: 30, Y: 20, Frame: 0}}},
		{Points: []trajectory.Point{{X: 5, Y: 5, Frame: 1}}}, // not alive in frame 0
	}}
	hm, err := Heatmap(img, ts, []float64{1, 0, 0.5}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if hm.Bounds().Dx() != 40+barWidth || hm.Bounds().Dy() != 30 {
		t.Fatalf("size %v", hm.Bounds())
	}
	hot, cold := hm.RGBAAt(10, 10), hm.RGBAAt(30, 20)
	// Moreland's blue → red map: the top end is red, the bottom end a blue
	// clearly brighter than black (certain points stay visible).
	if hot.R < 150 || hot.B > 60 || cold.B < 150 || cold.R > 80 || int(cold.R)+int(cold.G)+int(cold.B) < 250 {
		t.Errorf("u=1 colour %v should be red, u=0 colour %v a visible blue", hot, cold)
	}
	if hot != UncertaintyColor(0.5) || UncertaintyColor(0.25) == UncertaintyColor(0.5) {
		t.Error("u ≥ 0.5 should saturate the colour scale, 0.25 should not")
	}
	if c := hm.RGBAAt(5, 5); c != (color.RGBA{R: 40, G: 40, B: 40, A: 255}) {
		t.Errorf("pixel of a track not alive in the frame was drawn: %v", c)
	}
	if _, err := Heatmap(img, ts, []float64{1}, 0); err == nil {
		t.Error("uncertainty count mismatch accepted")
	}
}

// HeatmapValues by hand: γ = 45 ln 3 gives u_T = σ(−ln 3) = 1/4 at T = 45,
// γ = 0 gives ½, γ = +∞ gives 0; at T = 1 (or 0) the map is of u itself.
func TestHeatmapValuesCalibrated(t *testing.T) {
	r := &Result{Gamma: []float64{45 * math.Log(3), 0, math.Inf(1)}, U: []float64{1e-30, 0.5, 0}}
	v, label := HeatmapValues(r, 45)
	if math.Abs(v[0]-0.25) > 1e-12 || v[1] != 0.5 || v[2] != 0 || label != "u_T, T=45" {
		t.Errorf("T = 45: %v %q, want [0.25 0.5 0] and the label u_T, T=45", v, label)
	}
	for _, T := range []float64{1, 0} {
		if v, label := HeatmapValues(r, T); &v[0] != &r.U[0] || label != "u(v)" {
			t.Errorf("T = %v: %v %q, want u itself", T, v, label)
		}
	}
}
