package synth

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/densify/densify/trajectory"
)

// SetOptions is one run of `densify synth` (WriteSet).
type SetOptions struct {
	Out    string // output folder
	Count  int    // sequences synth01 … (1..999); sequence i uses Params.Seed + i − 1
	Params Params
	// Tracks also writes <seq>Tracks<frames>_gt.dat (true trajectories on a
	// Spacing grid) and _corrupt.dat (a Corrupt fraction of labels wrong).
	Tracks  bool
	Spacing int
	Corrupt float64
}

// SetItem describes one written sequence.
type SetItem struct {
	Name     string
	Dir      string
	Params   Params // with the sequence's seed
	GTTracks int    // ground-truth trajectories (with Tracks)
	Seconds  float64
}

// WriteSet generates and writes opt.Count sequences in FBMS layout (see
// Sequence.Write), calling done (may be nil) after each.
func WriteSet(opt SetOptions, done func(i int, it SetItem)) ([]SetItem, error) {
	switch {
	case opt.Out == "":
		return nil, errors.New("synth: --out is required")
	case opt.Count < 1 || opt.Count > 999:
		return nil, fmt.Errorf("synth: --count %d out of range (1..999)", opt.Count)
	case opt.Spacing < 1:
		return nil, fmt.Errorf("synth: --spacing %d must be ≥ 1", opt.Spacing)
	case !(opt.Corrupt >= 0 && opt.Corrupt <= 1):
		return nil, fmt.Errorf("synth: --corrupt %v out of range (0..1)", opt.Corrupt)
	case opt.Params.Seed > math.MaxInt64-int64(opt.Count-1):
		// sequence i uses seed + i − 1, which must not wrap around
		return nil, fmt.Errorf("synth: --seed %d with --count %d: the last sequence's seed %d + %d exceeds %d", opt.Params.Seed, opt.Count, opt.Params.Seed, opt.Count-1, int64(math.MaxInt64))
	}
	if err := opt.Params.Validate(); err != nil {
		return nil, err
	}
	var items []SetItem
	for i := 0; i < opt.Count; i++ {
		start := time.Now()
		p := opt.Params
		p.Seed += int64(i)
		it := SetItem{Name: fmt.Sprintf("synth%02d", i+1), Params: p}
		it.Dir = filepath.Join(opt.Out, it.Name)
		s, err := Generate(p)
		if err != nil {
			return nil, err
		}
		if err := s.Write(opt.Out, it.Name); err != nil {
			return nil, err
		}
		if opt.Tracks {
			gt := s.GroundTruthTracks(opt.Spacing)
			base := filepath.Join(it.Dir, fmt.Sprintf("%sTracks%d", it.Name, p.Frames))
			if err := trajectory.WriteTracks(base+"_gt.dat", gt); err != nil {
				return nil, err
			}
			if err := trajectory.WriteTracks(base+"_corrupt.dat", Corrupt(gt, opt.Corrupt, p.Seed)); err != nil {
				return nil, err
			}
			it.GTTracks = len(gt.Tracks)
		}
		it.Seconds = time.Since(start).Seconds()
		items = append(items, it)
		if done != nil {
			done(i, it)
		}
	}
	return items, nil
}
