package refine

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/parallel"
)

// FolderStats sums the Stats of the frames of CutFolder.
type FolderStats struct {
	Frames  int // masks written
	Refined int // frames the cut changed (the others are their map's threshold)
	Before  int // foreground pixels of the thresholded maps (P > ½)
	After   int // foreground pixels of the refined masks
}

// CutFolder refines saved probability maps with GraphCut, as densify
// predict refines the maps it computes: frame i of frames (a sequence's
// images in dataset.ListFrames order) and probDir/NNNNN.png, NNNNN = i
// (the grey maps, probability × 255, that densify predict --prob writes,
// fused when it fuses) give out/NNNNN.png, the refined mask (0/255 grey).
// A researcher studies the refinement on the network's maps without
// running the network again. A missing map, or one of another size than
// its frame, is an error naming the first such file in frame order, found
// from the files' headers before any frame is cut. out is built beside
// itself and replaces an earlier folder as a whole (atomicfile.ReplaceDir):
// a failed run leaves no partial output. workers frames are cut at a time
// (≤ 0: GOMAXPROCS); progress, if not nil, is called after each frame
// written.
func CutFolder(frames []string, probDir, out string, o CutOptions, workers int, progress func(done, total int)) (FolderStats, error) {
	if err := o.Validate(); err != nil {
		return FolderStats{}, err
	}
	if len(frames) == 0 {
		return FolderStats{}, fmt.Errorf("refine: no frames")
	}
	// Every map is there and of its frame's size (headers only) before any
	// cut: the first bad file in frame order is the one an error names.
	for i, f := range frames {
		p := filepath.Join(probDir, fmt.Sprintf("%05d.png", i))
		w, h, err := dataset.ImageSize(f)
		if err != nil {
			return FolderStats{}, err
		}
		pw, ph, err := dataset.ImageSize(p)
		if err != nil {
			return FolderStats{}, fmt.Errorf("%w (the probability maps of densify predict --prob)", err)
		}
		if pw != w || ph != h {
			return FolderStats{}, fmt.Errorf("%s: a %dx%d map for the %dx%d frame %s", p, pw, ph, w, h, f)
		}
	}
	tmp, err := atomicfile.TempDir(out)
	if err != nil {
		return FolderStats{}, err
	}
	defer os.RemoveAll(tmp) // gone after ReplaceDir; a failed run's
	stats := make([]Stats, len(frames))
	var mu sync.Mutex // guards done and the progress calls
	done := 0
	err = parallel.For(len(frames), workers, func(i int) error {
		name := fmt.Sprintf("%05d.png", i)
		img, err := dataset.ReadImage(frames[i])
		if err != nil {
			return err
		}
		pm, err := dataset.ReadImageFormat(filepath.Join(probDir, name), "png")
		if err != nil {
			return err
		}
		mask, st, err := GraphCut(img, dataset.ProbabilityValues(pm), o)
		if err != nil {
			return fmt.Errorf("%s: %w", frames[i], err)
		}
		stats[i] = st
		b := img.Bounds()
		g := dataset.MaskImage(mask, b.Dx(), b.Dy(), 1)
		if err := atomicfile.WritePNG(filepath.Join(tmp, name), g); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if done++; progress != nil {
			progress(done, len(frames))
		}
		return nil
	})
	if err != nil {
		return FolderStats{}, err
	}
	if err := atomicfile.ReplaceDir(tmp, out); err != nil {
		return FolderStats{}, err
	}
	var sum FolderStats
	for _, st := range stats {
		sum.Frames++
		sum.Before += st.Before
		sum.After += st.After
		if st.Refined {
			sum.Refined++
		}
	}
	return sum, nil
}
