package trainset

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
)

// LabelScores compares the foreground of sparse training labels with the
// ground truth over a set of pixels: TP = labelled foreground (class ≥ 1)
// on ground-truth foreground (any region other than region 0, the
// background by the FBMS and DAVIS convention), FP = labelled foreground on
// ground-truth background, FN = labelled background on ground-truth
// foreground;
//
//	precision = TP/(TP+FP),  recall = TP/(TP+FN),  IoU = TP/(TP+FP+FN),
//
// each 1 when its denominator is 0. Accuracy is the share of the pixels whose
// label (foreground or background) agrees with the ground truth.
type LabelScores struct {
	Pixels    int     `json:"pixels"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	IoU       float64 `json:"iou"`
	Accuracy  float64 `json:"accuracy"`
}

// LabelQuality is the score of the training labels of a prepared set against
// the ground truth: over every labelled pixel of the labelled frames, and
// over the hard-example pixels alone.
type LabelQuality struct {
	Labelled LabelScores `json:"labelled"`
	Hard     LabelScores `json:"hard"`
	Frames   int         `json:"frames"` // ground-truth frames that had training labels
	// ByLength scores the pixels labelled by trajectories, by the length
	// of the trajectory (non-empty bins only; added border and
	// far-background points are in none).
	ByLength []LengthScores `json:"by_trajectory_length,omitempty"`
	// AwayFromThin scores the labelled pixels outside the band around the
	// thin parts of the ground-truth object
	// (dataset.LabelledFrame.ThinPartsBand): lines, cords and spokes a few
	// pixels wide, where a correct label of the scene behind the part
	// counts as an error and a trajectory on the part is within the
	// optical flow's resolution of the background. Always set by
	// ScoreLabels; nil in files written before it existed.
	AwayFromThin *LabelScores `json:"away_from_thin_parts,omitempty"`
	// ByFrame has one entry per ground-truth frame of the set, in the
	// set's frame order: where the object carries no object label, the
	// network has only the other frames to go by (UnlabelledObjectFrames).
	// Nil in files written before it existed.
	ByFrame []FrameLabels `json:"by_frame,omitempty"`
}

// FrameLabels are the labels of one annotated frame against its object:
// the object's area in the ground truth (pixels of a region other than 0),
// the object and background labels on it (TP and FN of LabelScores) and
// the object labels off it (FP).
type FrameLabels struct {
	Frame            int `json:"frame"`
	ObjectPixels     int `json:"object_pixels"`
	ObjectLabels     int `json:"object_labels_on_object"`
	BackgroundLabels int `json:"background_labels_on_object"`
	ObjectLabelsOff  int `json:"object_labels_off_object"`
}

// UnlabelledObjectFrames are the frames (ByFrame) whose ground truth shows
// an object on which no pixel is labelled object: the trajectories lost it
// there (a fast jump, a small object behind branches) or never reached it.
func (q LabelQuality) UnlabelledObjectFrames() []int {
	var fs []int
	for _, f := range q.ByFrame {
		if f.ObjectPixels > 0 && f.ObjectLabels == 0 {
			fs = append(fs, f.Frame)
		}
	}
	return fs
}

// LengthScores are the LabelScores of the pixels labelled by trajectories
// of MinPoints to MaxPoints points (MaxPoints 0: no upper bound). The bins
// are 1, 2–3, 4–7, …, 16–31 and ≥ 32 points: the foreground precision of
// the short bins tells how far the labels of short trajectories can be
// trusted (Options.SupportRadius).
type LengthScores struct {
	MinPoints int `json:"min_points"`
	MaxPoints int `json:"max_points,omitempty"`
	LabelScores
}

// lengthBin is the bin of a trajectory of n ≥ 1 points: ⌊log₂ n⌋, at most
// lengthBins − 1.
func lengthBin(n int) int {
	b := 0
	for n > 1 && b < lengthBins-1 {
		n >>= 1
		b++
	}
	return b
}

const lengthBins = 6

type confusion struct{ tp, fp, fn, tn int }

func (c *confusion) add(fg, gtFG bool) {
	switch {
	case fg && gtFG:
		c.tp++
	case fg:
		c.fp++
	case gtFG:
		c.fn++
	default:
		c.tn++
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (c confusion) scores() LabelScores {
	n := c.tp + c.fp + c.fn + c.tn
	return LabelScores{Pixels: n, Precision: ratio(c.tp, c.tp+c.fp), Recall: ratio(c.tp, c.tp+c.fn),
		IoU: ratio(c.tp, c.tp+c.fp+c.fn), Accuracy: ratio(c.tp+c.tn, n)}
}

// ScoreLabels scores the set's labels against gt (frames matched by number;
// ground-truth images of another size than the set are an error of the
// caller, checked before: such frames are skipped). Pixels whose ground-truth
// colour is unknown (region −1) are not counted.
func ScoreLabels(set *Set, gt *dataset.GroundTruth) LabelQuality {
	byFrame := map[int]*dataset.LabelledFrame{}
	for i := range gt.Frames {
		byFrame[gt.Frames[i].Frame] = &gt.Frames[i]
	}
	var all, hard, away confusion
	var byLen [lengthBins]confusion
	q := LabelQuality{}
	for _, f := range set.Frames {
		lf := byFrame[f.Frame]
		if lf == nil || lf.Width != set.Width || lf.Height != set.Height {
			continue
		}
		used := false
		var band []bool
		fl := FrameLabels{Frame: f.Frame}
		for pix, l := range f.Labels {
			if lf.Region[pix] > 0 {
				fl.ObjectPixels++
			}
			if l == Unlabelled || lf.Region[pix] < 0 {
				continue
			}
			if band == nil {
				band = lf.ThinPartsBand()
			}
			used = true
			fg, gtFG := l >= 1, lf.Region[pix] != 0
			switch {
			case fg && gtFG:
				fl.ObjectLabels++
			case fg:
				fl.ObjectLabelsOff++
			case gtFG:
				fl.BackgroundLabels++
			}
			all.add(fg, gtFG)
			if !band[pix] {
				away.add(fg, gtFG)
			}
			if f.Hard != nil && f.Hard[pix] != 0 {
				hard.add(fg, gtFG)
			}
			if f.Length != nil && f.Length[pix] > 0 {
				byLen[lengthBin(int(f.Length[pix]))].add(fg, gtFG)
			}
		}
		if used {
			q.Frames++
		}
		q.ByFrame = append(q.ByFrame, fl)
	}
	awayScores := away.scores()
	q.Labelled, q.Hard, q.AwayFromThin = all.scores(), hard.scores(), &awayScores
	for b, c := range byLen {
		if c.tp+c.fp+c.fn+c.tn == 0 {
			continue
		}
		ls := LengthScores{MinPoints: 1 << b, LabelScores: c.scores()}
		if b < lengthBins-1 {
			ls.MaxPoints = 1<<(b+1) - 1
		}
		q.ByLength = append(q.ByLength, ls)
	}
	return q
}

// LabelQualityFile is the file in a prepared set's folder that holds its
// LabelQuality when prepare was given the ground truth.
const LabelQualityFile = "label_quality.json"

// WriteLabelQuality writes q as JSON to dir/LabelQualityFile (atomically).
func WriteLabelQuality(dir string, q LabelQuality) error {
	b, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, LabelQualityFile), append(b, '\n'))
}

// ReadLabelQuality reads dir/LabelQualityFile.
func ReadLabelQuality(dir string) (LabelQuality, error) {
	var q LabelQuality
	path := filepath.Join(dir, LabelQualityFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return q, err
	}
	if err := json.Unmarshal(b, &q); err != nil {
		return q, fmt.Errorf("%s: %v", path, err)
	}
	return q, nil
}

// FrameSpans writes ascending frame numbers as runs of consecutive frames:
// [16 17 18 22 62 63 64] → "16–18, 22, 62–64".
func FrameSpans(fs []int) string {
	var b strings.Builder
	for i := 0; i < len(fs); {
		j := i
		for j+1 < len(fs) && fs[j+1] == fs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if j > i {
			fmt.Fprintf(&b, "%d–%d", fs[i], fs[j])
		} else {
			fmt.Fprintf(&b, "%d", fs[i])
		}
		i = j + 1
	}
	return b.String()
}
