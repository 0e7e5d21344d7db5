package uncertainty

import (
	"fmt"
	"path/filepath"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trajectory"
)

// LoadInstance reads a graph instance file and its labels file (one label
// per node; a count mismatch is an error naming the labels file). The
// labelling must be a multicut of the graph, every cluster connected
// through E (multicut.Feasible), as multicut --start and nbest require:
// the moves γ measures are defined for such labellings only.
func LoadInstance(graphPath, labelsPath string) (*multicut.Graph, []int, error) {
	g, err := multicut.ReadGraph(graphPath)
	if err != nil {
		return nil, nil, err
	}
	labels, err := multicut.ReadLabels(labelsPath, g.N)
	if err != nil {
		return nil, nil, err
	}
	if err := multicut.Feasible(g, labels); err != nil {
		return nil, nil, fmt.Errorf("%s: not a multicut of %s: %w", labelsPath, graphPath, err)
	}
	return g, labels, nil
}

// LoadTracks reads a Tracks file that must hold one trajectory per node.
func LoadTracks(path string, n int) (*trajectory.TrackSet, error) {
	ts, err := trajectory.ReadTracks(path)
	if err != nil {
		return nil, err
	}
	if len(ts.Tracks) != n {
		return nil, fmt.Errorf("%s: %d trajectories but the graph has %d nodes", path, len(ts.Tracks), n)
	}
	return ts, nil
}

// HeatmapFrames chooses the frames to draw: every frame when all is set,
// else the labelled frames of gt when given, else every every-th frame
// (0, every, 2·every, …) of the total.
func HeatmapFrames(total int, gt *dataset.GroundTruth, every int, all bool) []int {
	var fs []int
	switch {
	case all:
		for f := 0; f < total; f++ {
			fs = append(fs, f)
		}
	case gt != nil:
		for _, lf := range gt.Frames {
			if lf.Frame < total {
				fs = append(fs, lf.Frame)
			}
		}
	default:
		if every < 1 {
			every = 10
		}
		for f := 0; f < total; f += every {
			fs = append(fs, f)
		}
	}
	return fs
}

// CheckHeatmapGeometry checks, before anything is drawn or written, that
// the trajectories (read from tracksName) lie on the frames of framesDir
// (trajectory.TrackSet.CheckBounds against the first frame's size), that
// the frames cover the tracks' frames and, when gt is not nil (it selects
// the frames drawn), that its label images have the frames' size.
func CheckHeatmapGeometry(framesDir string, ts *trajectory.TrackSet, tracksName string, gt *dataset.GroundTruth) error {
	paths, err := dataset.ListFrames(framesDir)
	if err != nil {
		return err
	}
	if err := checkHeatmapGeometry(paths, framesDir, ts, tracksName); err != nil {
		return err
	}
	if gt != nil && len(paths) > 0 {
		w, h, err := dataset.ImageSize(paths[0])
		if err != nil {
			return err
		}
		return dataset.CheckGroundTruthSize(gt, w, h, framesDir)
	}
	return nil
}

func checkHeatmapGeometry(paths []string, framesDir string, ts *trajectory.TrackSet, name string) error {
	if len(paths) < ts.Frames {
		return fmt.Errorf("%s: the tracks have %d frames but %s has %d", name, ts.Frames, framesDir, len(paths))
	}
	if len(paths) == 0 {
		return nil
	}
	w, h, err := dataset.ImageSize(paths[0])
	if err != nil {
		return err
	}
	if err := ts.CheckBounds(name, w, h); err != nil {
		return fmt.Errorf("%w (frames in %s)", err, framesDir)
	}
	return nil
}

// WriteHeatmaps draws HeatmapLabelled (values u, colour bar label) for each
// frame in frames (images from framesDir, see dataset.ListFrames) into
// outDir/heat_NNNNN.png and returns the written paths. progress (may be
// nil) gets the frames done and their total.
func WriteHeatmaps(framesDir, outDir string, ts *trajectory.TrackSet, u []float64, label string, frames []int, progress func(done, total int)) ([]string, error) {
	paths, err := dataset.ListFrames(framesDir)
	if err != nil {
		return nil, err
	}
	if err := checkHeatmapGeometry(paths, framesDir, ts, "heatmaps"); err != nil {
		return nil, err
	}
	var out []string
	for i, f := range frames {
		if f < 0 || f >= len(paths) {
			return out, fmt.Errorf("heatmap: frame %d not in %s (%d frames)", f, framesDir, len(paths))
		}
		img, err := dataset.ReadImage(paths[f])
		if err != nil {
			return out, err
		}
		hm, err := HeatmapLabelled(img, ts, u, f, label)
		if err != nil {
			return out, err
		}
		p := filepath.Join(outDir, fmt.Sprintf("heat_%05d.png", f))
		if err := atomicfile.WritePreviewPNG(p, hm); err != nil {
			return out, err
		}
		out = append(out, p)
		if progress != nil {
			progress(i+1, len(frames))
		}
	}
	return out, nil
}
