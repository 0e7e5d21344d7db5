package dataset

import "fmt"

// CheckGroundTruthSize checks that every label image of gt has the size of
// the sequence's frames (w×h, read from framesDir, which only names them in
// the error). Ground truth of another sequence or resolution would
// otherwise be scored against the wrong pixels, or fail only at the dense
// evaluation after training.
func CheckGroundTruthSize(gt *GroundTruth, w, h int, framesDir string) error {
	for _, lf := range gt.Frames {
		if lf.Width != w || lf.Height != h {
			file := lf.File
			if file == "" {
				file = fmt.Sprintf("labelled frame %d", lf.Frame)
			}
			return fmt.Errorf("%s: ground truth %s is %dx%d but the frames in %s are %dx%d",
				gt.Path, file, lf.Width, lf.Height, framesDir, w, h)
		}
	}
	return nil
}
