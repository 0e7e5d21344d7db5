package synth

import (
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
)

// FrameName is the FBMS file name of 0-based frame f: <seq>_0001.png for f = 0.
func FrameName(seq string, f int) string { return fmt.Sprintf("%s_%04d.png", seq, f+1) }

// LabelName is the label image name of 0-based frame f: <seq>_0001.ppm for f = 0.
func LabelName(seq string, f int) string { return fmt.Sprintf("%s_%04d.ppm", seq, f+1) }

// DefPath is <root>/<seq>/GroundTruth/<seq>Def.dat.
func DefPath(root, seq string) string {
	return filepath.Join(root, seq, "GroundTruth", seq+"Def.dat")
}

// boundaryProb is the ground-truth probability of pixels on a 1-px region
// boundary when Params.SoftBoundary is set (128 in the .pgm).
const boundaryProb = 128.0 / 255

// GroundTruth returns the FBMS ground truth of the sequence for the labelled
// frames: regions 0..Objects with colours Colors, the penalty matrix with 0
// on the diagonal and 1 elsewhere, label file names LabelName(seq, f).
// Prob is 1, or 128/255 on pixels with a 4-neighbour of another region when
// Params.SoftBoundary is set.
func (s *Sequence) GroundTruth(seq string) *dataset.GroundTruth {
	n := len(s.Colors)
	gt := &dataset.GroundTruth{
		Colors:      append([]int(nil), s.Colors...),
		Penalty:     make([][]float64, n),
		TotalFrames: len(s.Frames),
	}
	for i := range gt.Penalty {
		gt.Penalty[i] = make([]float64, n)
		for j := range gt.Penalty[i] {
			if i != j {
				gt.Penalty[i][j] = 1
			}
		}
	}
	W, H := s.Width, s.Height
	for _, f := range s.LabelledFrames() {
		reg := s.Regions[f]
		lf := dataset.LabelledFrame{Frame: f, File: LabelName(seq, f), Input: FrameName(seq, f), Width: W, Height: H,
			Region: make([]int, W*H), Prob: make([]float64, W*H)}
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				i := y*W + x
				lf.Region[i] = int(reg[i])
				lf.Prob[i] = 1
				if s.Params.SoftBoundary &&
					((x > 0 && reg[i-1] != reg[i]) || (x < W-1 && reg[i+1] != reg[i]) ||
						(y > 0 && reg[i-W] != reg[i]) || (y < H-1 && reg[i+W] != reg[i])) {
					lf.Prob[i] = boundaryProb
				}
			}
		}
		gt.Frames = append(gt.Frames, lf)
	}
	return gt
}

// Write stores the sequence in FBMS layout under root/seq (see the package
// comment): PNG frames, then the ground truth through dataset.WriteDef
// (.ppm label images, .pgm probabilities with SoftBoundary, Def.dat last).
// Every file is written atomically.
func (s *Sequence) Write(root, seq string) error {
	dir := filepath.Join(root, seq)
	errs := make([]error, len(s.Frames))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(s.Frames)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc := png.Encoder{CompressionLevel: png.BestSpeed}
			for f := range next {
				img := s.Frames[f]
				errs[f] = atomicfile.Write(filepath.Join(dir, FrameName(seq, f)),
					func(w io.Writer) error { return enc.Encode(w, img) })
			}
		}()
	}
	for f := range s.Frames {
		next <- f
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := dataset.WriteDef(DefPath(root, seq), s.GroundTruth(seq)); err != nil {
		return err
	}
	// Frames of an earlier, longer sequence of the same name would be read
	// as part of this one: remove them.
	for f := len(s.Frames); ; f++ {
		err := os.Remove(filepath.Join(dir, FrameName(seq, f)))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("remove stale frame: %w", err)
		}
	}
}
