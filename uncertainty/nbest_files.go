package uncertainty

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/eval"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trajectory"
)

// NBestEntry is one alternative in nbest.json.
type NBestEntry struct {
	Rank int `json:"rank"` // 1 = the input labeling
	Alternative
	LabelsFile string   `json:"labels_file"`
	TracksFile string   `json:"tracks_file,omitempty"`
	F          *float64 `json:"f,omitempty"` // FBMS F of this labeling (with ground truth)
	Precision  *float64 `json:"precision,omitempty"`
	Recall     *float64 `json:"recall,omitempty"`
}

// NBestReport is the content of nbest.json.
type NBestReport struct {
	Alternatives []NBestEntry `json:"alternatives"`
	// BestOfN[n−1] = max F over the first n labelings (Kardoost & Keuper, UAI 2021, Fig. 6), with ground truth.
	BestOfN []float64 `json:"best_of_n_f,omitempty"`
}

// WriteNBest writes the alternatives into dir as labels_01.txt, …; with ts
// (one trajectory per node) also tracks_01.dat, … with the labels applied;
// with gt (requires ts) it scores each labeling with eval.Sequence (default
// options, as densify eval) and records the best-of-n F. nbest.json holds
// energies, moves and scores.
func WriteNBest(dir string, alts []Alternative, ts *trajectory.TrackSet, gt *dataset.GroundTruth) (*NBestReport, error) {
	if gt != nil && ts == nil {
		return nil, fmt.Errorf("nbest: scoring against ground truth needs the Tracks file")
	}
	rep := &NBestReport{}
	best := -1.0
	for i, a := range alts {
		e := NBestEntry{Rank: i + 1, Alternative: a, LabelsFile: fmt.Sprintf("labels_%02d.txt", i+1)}
		if err := multicut.WriteLabels(filepath.Join(dir, e.LabelsFile), a.Labels); err != nil {
			return nil, err
		}
		if ts != nil {
			if len(ts.Tracks) != len(a.Labels) {
				return nil, fmt.Errorf("nbest: %d trajectories for %d labels", len(ts.Tracks), len(a.Labels))
			}
			lts := &trajectory.TrackSet{Frames: ts.Frames, Tracks: make([]trajectory.Track, len(ts.Tracks))}
			for v := range ts.Tracks {
				lts.Tracks[v] = trajectory.Track{Label: a.Labels[v], Points: ts.Tracks[v].Points}
			}
			e.TracksFile = fmt.Sprintf("tracks_%02d.dat", i+1)
			if err := trajectory.WriteTracks(filepath.Join(dir, e.TracksFile), lts); err != nil {
				return nil, err
			}
			if gt != nil {
				res, err := eval.Sequence(gt, lts, eval.Options{})
				if err != nil {
					return nil, fmt.Errorf("nbest: scoring labeling %d: %w", i+1, err)
				}
				f, p, r := res.F, res.Precision, res.Recall
				e.F, e.Precision, e.Recall = &f, &p, &r
				if f > best {
					best = f
				}
				rep.BestOfN = append(rep.BestOfN, best)
			}
		}
		rep.Alternatives = append(rep.Alternatives, e)
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "nbest.json"), append(data, '\n')); err != nil {
		return nil, err
	}
	return rep, nil
}
