package motiongraph

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/trajectory"
)

// FitDatasetOptions is one run of the cost fit on a dataset (FitDataset).
type FitDatasetOptions struct {
	Data      string // dataset root (dataset.FindSequences)
	TracksDir string // cache of <seq>Tracks<frames>.dat ("" = <folder of Out>/tracks)
	Out       string // model JSON
	// Calibration is the reliability table CSV ("" = <Out without .json>.calibration.csv);
	// the report goes to <Out without .json>.calibration.json.
	Calibration string
	Graph       GraphParams
	Lambda      float64 // L2 penalty on the standardised feature weights
	NoColour    bool    // do not read frames for the colour feature
	HeldOut     bool    // also leave-one-sequence-out calibration (≥ 2 sequences)
	// FoldModels, with HeldOut, receives the leave-one-sequence-out models
	// as <FoldModels>/<sequence>.json (each fitted without that sequence).
	FoldModels string
	// Tracker, its options and flow method track sequences without cached tracks.
	Tracker        trajectory.SequenceTracker
	TrackerOptions trajectory.TrackerOptions
	Flow           string
	// Log gets one line per sequence and the tracker's progress (nil: none).
	Log io.Writer
}

// FitReport is the outcome of FitDataset (written beside the model).
type FitReport struct {
	Model       string                  `json:"model"`
	Sequences   []FitSequence           `json:"sequences"`
	InSample    *Calibration            `json:"in_sample"`
	HeldOut     *Calibration            `json:"held_out,omitempty"`
	PerSeqOut   map[string]*Calibration `json:"held_out_per_sequence,omitempty"`
	CostModel   *CostModel              `json:"-"`
	Calibration string                  `json:"-"` // reliability table CSV
	Report      string                  `json:"-"` // this report's JSON
}

// FitSequence counts one sequence's labelled pairs.
type FitSequence struct {
	Name    string `json:"name"`
	Tracks  int    `json:"tracks"`
	Pairs   int    `json:"pairs"`
	Cut     int    `json:"cut"`
	Skipped int    `json:"skipped_unlabelled"`
}

// FitDataset fits the edge cost model on every sequence with ground truth
// under opt.Data: trajectories from the cache (or tracked and cached), the
// motion-graph pairs labelled "cut" when the ground truth puts their
// trajectories in different regions (dataset.TrackRegions), then FitCosts
// and, with HeldOut, HeldOutCalibration. It writes the model, the
// reliability table and the report.
func FitDataset(opt FitDatasetOptions) (*FitReport, error) {
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	tracksDir := opt.TracksDir
	if tracksDir == "" {
		tracksDir = filepath.Join(filepath.Dir(opt.Out), "tracks")
	}
	seqs, err := dataset.FindSequences(opt.Data)
	if err != nil {
		return nil, err
	}
	fp := DefaultFeatureParams()
	var samples []PairSample
	rep := &FitReport{Model: opt.Out}
	for _, sq := range seqs {
		if sq.GTPath == "" {
			fmt.Fprintf(log, "fit-costs: %s has no ground truth, skipped\n", sq.Name)
			continue
		}
		gt, err := dataset.LoadGroundTruth(sq.GTPath)
		if err != nil {
			return nil, err
		}
		ts, paths, err := cachedTracks(sq.Name, sq.FramesDir, tracksDir, opt, log)
		if err != nil {
			return nil, err
		}
		var imgs []image.Image
		if !opt.NoColour {
			imgs = make([]image.Image, len(paths))
			for i, p := range paths {
				if imgs[i], err = dataset.ReadImage(p); err != nil {
					return nil, err
				}
			}
		}
		cam, err := EstimateCamera(ts, fp)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sq.Name, err)
		}
		ps, err := ComputePairs(ts, imgs, cam, opt.Graph, fp)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sq.Name, err)
		}
		s := LabelPairs(ps, dataset.TrackRegions(ts, gt.Frames), sq.Name, opt.Graph.Lifted)
		cut := 0
		for _, x := range s {
			if x.Cut {
				cut++
			}
		}
		fs := FitSequence{Name: sq.Name, Tracks: len(ts.Tracks), Pairs: len(s), Cut: cut, Skipped: ps.Len() - len(s)}
		rep.Sequences = append(rep.Sequences, fs)
		fmt.Fprintf(log, "fit-costs: %-24s %6d tracks %8d pairs (%.1f%% cut, %d skipped)\n",
			sq.Name, fs.Tracks, fs.Pairs, 100*float64(cut)/float64(max(len(s), 1)), fs.Skipped)
		samples = append(samples, s...)
	}
	fo := FitOptions{Lambda: opt.Lambda, Params: fp,
		Source: fmt.Sprintf("densify fit-costs --data %s (%d sequences, %d pairs)", filepath.Base(filepath.Clean(opt.Data)), len(rep.Sequences), len(samples))}
	m, cal, err := FitCosts(samples, fo)
	if err != nil {
		return nil, err
	}
	rep.CostModel, rep.InSample = m, cal
	if opt.HeldOut && len(rep.Sequences) >= 2 {
		var folds map[string]*CostModel
		if rep.HeldOut, rep.PerSeqOut, folds, err = HeldOut(samples, fo); err != nil {
			return nil, err
		}
		if opt.FoldModels != "" {
			for name, fm := range folds {
				fm.Source = fmt.Sprintf("%s without %s", fo.Source, name)
				if err := WriteCostModel(filepath.Join(opt.FoldModels, name+".json"), fm); err != nil {
					return nil, err
				}
			}
		}
	}
	rep.Calibration = opt.Calibration
	if rep.Calibration == "" {
		rep.Calibration = strings.TrimSuffix(opt.Out, ".json") + ".calibration.csv"
	}
	rep.Report = strings.TrimSuffix(opt.Out, ".json") + ".calibration.json"
	if err := WriteCostModel(opt.Out, m); err != nil {
		return nil, err
	}
	if err := cal.WriteCSV(rep.Calibration); err != nil {
		return nil, err
	}
	return rep, atomicfile.WriteJSON(rep.Report, rep)
}

// tracksRecord is how fit-costs made a cached track file: written beside it
// as <file>.json, so that tracks of other tracker options, of another
// optical flow configuration (trajectory.FlowDescriber) or of other frames
// are tracked again instead of being fitted on silently.
type tracksRecord struct {
	Tracker    trajectory.TrackerOptions `json:"tracker"`
	Flow       string                    `json:"flow"`
	FlowParams string                    `json:"flow_params,omitempty"`
	// Frames is the SHA-256 of the frames' file names and sizes, one
	// "name size" line per frame in order.
	Frames string `json:"frames"`
}

// recordFor is the record of tracking paths with opt's tracker.
func recordFor(paths []string, opt FitDatasetOptions) (tracksRecord, error) {
	r := tracksRecord{Tracker: opt.TrackerOptions, Flow: opt.Flow}
	if d, ok := opt.Tracker.(trajectory.FlowDescriber); ok {
		r.FlowParams = d.FlowParams(opt.Flow)
	}
	h := sha256.New()
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return r, err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(p), fi.Size())
	}
	r.Frames = hex.EncodeToString(h.Sum(nil))
	return r, nil
}

// cachedTracks returns the trajectories of a sequence and its frame paths.
//   - <name>Tracks<frames>.dat in the frame folder (tracks that come with
//     the dataset) is used as it is;
//   - <tracksDir>/<name>Tracks<frames>.dat is used when its record
//     (<file>.json, tracksRecord) matches the tracker, its options, the
//     flow and the frames; a cache of another configuration, or without a
//     record (written before records existed), is tracked again when a
//     tracker is given, and otherwise used with a line in the log that says
//     how it differs;
//   - otherwise the frames are tracked, and the tracks and their record are
//     cached in tracksDir.
func cachedTracks(name, framesDir, tracksDir string, opt FitDatasetOptions, log io.Writer) (*trajectory.TrackSet, []string, error) {
	paths, err := dataset.ListFrames(framesDir)
	if err != nil {
		return nil, nil, err
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("%s: no frames", framesDir)
	}
	file := trajectory.TracksFileName(name, len(paths))
	if p := filepath.Join(framesDir, file); fileExists(p) {
		ts, err := trajectory.ReadTracks(p)
		return ts, paths, err
	}
	want, err := recordFor(paths, opt)
	if err != nil {
		return nil, nil, err
	}
	cache := filepath.Join(tracksDir, file)
	if fileExists(cache) {
		why := ""
		var got tracksRecord
		switch data, err := os.ReadFile(cache + ".json"); {
		case err != nil:
			why = "it has no record of how it was tracked (" + filepath.Base(cache) + ".json)"
		case json.Unmarshal(data, &got) != nil:
			why = "its record " + cache + ".json is unreadable"
		case got.Frames != want.Frames:
			why = "the frames changed since"
		case got != want:
			why = "it was tracked with other tracker or flow settings"
		}
		if why == "" {
			ts, err := trajectory.ReadTracks(cache)
			return ts, paths, err
		}
		if opt.Tracker == nil {
			fmt.Fprintf(log, "fit-costs: %s: using %s although %s (no tracker to track again)\n", name, cache, why)
			ts, err := trajectory.ReadTracks(cache)
			return ts, paths, err
		}
		fmt.Fprintf(log, "fit-costs: %s: tracking again: %s, but %s\n", name, cache, why)
	} else if opt.Tracker == nil {
		return nil, nil, fmt.Errorf("%s: no cached %s and no tracker", name, file)
	}
	ts, err := opt.Tracker.TrackSequence(paths, opt.TrackerOptions, opt.Flow, progress.Func(log, "track "+name))
	if err != nil {
		return nil, nil, err
	}
	if err := trajectory.WriteTracks(cache, ts); err != nil {
		return nil, nil, err
	}
	data, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	if err := atomicfile.WriteBytes(cache+".json", append(data, '\n')); err != nil {
		return nil, nil, err
	}
	return ts, paths, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
