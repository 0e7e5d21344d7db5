package trainset

import (
	"fmt"
	"image"

	"github.com/densify/densify/internal/colourcut"
	"github.com/densify/densify/internal/morph"
)

// DefaultCutMargin is the default of Options.CutMargin: one step of the
// grid (DefaultOptions' BorderStep), as DefaultFarGap. A cut errs first at
// the object's boundary, and without the margin its new background points
// reach onto objects whose colour matches the scene behind them (car-shadow's
// silver car against a building). Not tuned: 0 and 10 px were the only
// margins trained on.
const DefaultCutMargin = 10.0

// The background cut's energy: that of refine's graph cut and the colour
// check's mixtures (K = 5), refitted once on the first cut's labels (two
// cuts), contrast weight γ = 10.
var cutOptions = colourcut.Options{Colour: 1, Smooth: 10, Components: 5, Iterations: 2}

// cutHard is the cost of putting a labelled pixel on the other side: larger
// than any colour cost (−log of a mixture density over 0–255 is below ~100
// nats for any colour a mixture was fitted near) plus the pair weights of a
// pixel (8 · γ), so that no cut separates a labelled pixel from its class.
const cutHard = 1e6

// addCutBackground labels background (class 0) the unlabelled pixels of the
// grid {(x, y): x, y ≡ ⌊step/2⌋ mod step} within r of a foreground label
// (the ring that addFarBackground leaves open) that the background cut
// gives to the background, farther than margin from every pixel it gives
// to the object and than gap from every point of avoid; it returns how many
// it added.
//
// The background cut is Boykov & Jolly's graph cut with the frame's labels
// as hard constraints ("Interactive graph cuts for optimal boundary &
// region segmentation of objects in N-D images", ICCV 2001; there the user
// marks the pixels):
//
//	E(x) = Σ_p −log p(I_p | θ_{x_p}) + Σ_{p~q} γ / ‖p − q‖ · exp(−β ‖I_p − I_q‖²) · [x_p ≠ x_q],
//	β = 1 / (2 ⟨‖I_p − I_q‖²⟩),
//
// over the pixels within 2r of a foreground label (farther ones are fixed
// background), with every labelled pixel a hard constraint (class ≥ 1: x =
// 1, class 0: x = 0). θ_1 and θ_0 are GrabCut colour mixtures (Rother,
// Kolmogorov & Blake, SIGGRAPH 2004) fitted to the labelled pixels of each
// side and refitted on the first cut's labels; p ~ q is the
// 8-neighbourhood. E is submodular and one minimum s–t cut minimises it
// (colourcut.Cut).
//
// Why: trajectories need texture, so a textureless region near the object
// carries no label, and far-background points stop at r (98 px at 854×480)
// so as not to claim a textureless part of the object. There the U-Net
// decides alone, and it paints what moves with the object and looks like
// it as the object: blackswan's reflection, car-shadow's shadow. The cut
// decides that region by colour and contrast from the labels around it;
// the margin keeps the new labels off the object's boundary, where a cut
// errs first.
func addCutBackground(img image.Image, labels []int16, W, H, step int, r, margin float64, avoid [][2]int, gap float64) (int, error) {
	if step <= 0 || !(r > 0) {
		return 0, nil
	}
	fg := make([]bool, W*H)
	any := false
	for i, l := range labels {
		if l >= 1 {
			fg[i], any = true, true
		}
	}
	if !any {
		return 0, nil
	}
	dFG := morph.SquaredDistance(fg, W, H, true)
	node, n := colourcut.Nodes(dFG, 4*r*r) // within 2r
	rgb := make([]float64, 3*W*H)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			c := rgbAt(img, x, y)
			i := 3 * (y*W + x)
			rgb[i], rgb[i+1], rgb[i+2] = float64(c[0]), float64(c[1]), float64(c[2])
		}
	}
	obj, ok, err := backgroundCut(rgb, labels, node, n, W, H)
	if err != nil || !ok {
		return 0, err
	}
	objMask := make([]bool, W*H)
	for i, k := range node {
		objMask[i] = k >= 0 && obj[k]
	}
	dObj := morph.SquaredDistance(objMask, W, H, true)
	nearAvoid := newPointBuckets(avoid, gap)
	added := 0
	for y := step / 2; y < H; y += step {
		for x := step / 2; x < W; x += step {
			i := y*W + x
			if labels[i] != Unlabelled || dFG[i] > r*r || dObj[i] <= margin*margin || nearAvoid.near(x, y) {
				continue
			}
			labels[i] = 0
			added++
		}
	}
	return added, nil
}

// backgroundCut minimises addCutBackground's energy over the n free pixels
// (node ≥ 0; the others are fixed background) and returns which of them
// the cut gives to the object: colourcut.Cut with the labelled pixels as
// hard constraints, the first colour samples of their side, and cutHard as
// the cost of the other side. ok is false when a side has fewer than
// colourcut.MinSamples labelled pixels among the free pixels: no colour
// model, no cut.
func backgroundCut(rgb []float64, labels []int16, node []int32, n, W, H int) (obj []bool, ok bool, err error) {
	u0, u1 := make([]float64, n), make([]float64, n)
	fixed := make([]int8, n) // −1 free, 0 background, 1 object
	for i, k := range node {
		if k < 0 {
			continue
		}
		fixed[k] = -1
		switch l := labels[i]; {
		case l >= 1:
			fixed[k], u0[k] = 1, cutHard
		case l == 0:
			fixed[k], u1[k] = 0, cutHard
		}
	}
	obj, ok, err = colourcut.Cut(rgb, node, n, W, H, u0, u1, fixed, cutOptions)
	if err != nil {
		return nil, false, fmt.Errorf("background cut: %w", err)
	}
	return obj, ok, nil
}
