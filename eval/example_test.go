package eval_test

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/eval"
)

// A 4×2 frame whose right half is the object (region 1), scored against a
// mask that labels one object pixel as background. Cluster 0 (5 pixels)
// covers the background's 4 pixels and 1 of the object: P = 4/5, R = 4/4;
// cluster 1 (3 pixels) lies inside the object: P = 3/3, R = 3/4. The
// Hungarian assignment pairs cluster 0 with the background and cluster 1
// with the object, so P̄ = (0.8 + 1)/2 = 0.9, R̄ = (1 + 0.75)/2 = 0.875 and
// F = 2 P̄ R̄ / (P̄ + R̄) ≈ 0.887. Both pairs have F > 0.75: one object
// (the background does not count) is extracted. The foreground IoU is 3/4.
func ExampleMasks() {
	gt := &dataset.GroundTruth{Colors: []int{0, 255}, TotalFrames: 1, Frames: []dataset.LabelledFrame{{
		Frame: 0, Width: 4, Height: 2,
		Region: []int{
			0, 0, 1, 1,
			0, 0, 1, 1},
		Prob: []float64{1, 1, 1, 1, 1, 1, 1, 1},
	}}}
	mask := &eval.LabelImage{Width: 4, Height: 2, Labels: []int{
		0, 0, 0, 255,
		0, 0, 255, 255}}
	r, err := eval.Masks(gt, map[int]*eval.LabelImage{0: mask}, eval.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("P %.3f  R %.3f  F %.3f\n", r.Precision, r.Recall, r.F)
	fmt.Printf("objects %d of %d, IoU %.2f\n", r.Objects, r.Visible, r.IoU)
	// Output:
	// P 0.900  R 0.875  F 0.887
	// objects 1 of 1, IoU 0.75
}
