package video

import (
	"errors"
	"fmt"
	"image"
	"os"
	"runtime"
	"sync"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/fileerr"
	"github.com/densify/densify/trajectory"
)

// ReadGray decodes one frame with dataset.ReadImage (JPEG, PNG, PPM/PGM;
// strictly: a truncated or corrupt file is an error naming it) and converts
// it to grey.
func ReadGray(path string) (*image.Gray, error) {
	img, err := dataset.ReadImage(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fileerr.New(path, 0, "frame does not exist")
		}
		return nil, err
	}
	if img.Bounds().Empty() {
		return nil, fileerr.New(path, 0, "empty image")
	}
	return ToGray(img), nil
}

// ReadFrames first checks, from the file headers, that every frame exists,
// is an image and has the size of the first one; then it decodes all frames
// (a few at a time) and reports a corrupt one. Errors name the file; the
// first failing frame in sequence order is reported.
func ReadFrames(paths []string) ([]*image.Gray, error) {
	if len(paths) == 0 {
		return nil, errors.New("no frames")
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fileerr.New(p, 0, "frame does not exist")
		}
		if err != nil {
			return nil, fmt.Errorf("frame: %w", err)
		}
		if !st.Mode().IsRegular() {
			return nil, fileerr.New(p, 0, "not a regular file")
		}
	}
	if _, _, err := dataset.CheckSameSize(paths); err != nil {
		return nil, err
	}
	frames := make([]*image.Gray, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for k := 0; k < min(runtime.NumCPU(), 4); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				frames[i], errs[i] = ReadGray(paths[i])
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	size := frames[0].Bounds().Size()
	for i, g := range frames { // headers can lie about the decoded size only for exotic files
		if s := g.Bounds().Size(); s != size {
			return nil, fileerr.New(paths[i], 0, "frame is %dx%d but %s is %dx%d", s.X, s.Y, paths[0], size.X, size.Y)
		}
	}
	return frames, nil
}

// TrackSequence reads the frames (all checked before any flow is computed),
// computes forward and backward flow between consecutive frames with the
// given method and runs the point tracker. progress (may be nil) is called
// with the number of frame pairs done and the total.
func TrackSequence(framePaths []string, opt trajectory.TrackerOptions, method Method, progress func(done, total int)) (*trajectory.TrackSet, error) {
	return TrackSequenceKeeping(framePaths, opt, method, nil, progress)
}

// TrackSequenceKeeping is TrackSequence that also hands every pair's
// forward and backward flow to keep (nil: none), as TrackKeeping.
func TrackSequenceKeeping(framePaths []string, opt trajectory.TrackerOptions, method Method, keep func(t int, fwd, bwd *trajectory.FlowField) error, progress func(done, total int)) (*trajectory.TrackSet, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if _, err := ParseMethod(string(method)); err != nil {
		return nil, err
	}
	if len(framePaths) < 2 {
		return nil, fmt.Errorf("tracking needs at least 2 frames, got %d", len(framePaths))
	}
	frames, err := ReadFrames(framePaths)
	if err != nil {
		return nil, err
	}
	ts, _, err := TrackKeeping(frames, opt, method, keep, progress)
	return ts, err
}

// pairFlow is the forward and backward flow of one frame pair.
type pairFlow struct {
	fwd, bwd *trajectory.FlowField
	err      error
}

// FlowPair computes the forward flow a→b and the backward flow b→a in
// parallel (OpenCV calls on separate buffers are thread-safe).
func FlowPair(a, b *image.Gray, method Method) (fwd, bwd *trajectory.FlowField, err error) {
	var wg sync.WaitGroup
	var errB error
	wg.Add(1)
	go func() {
		defer wg.Done()
		bwd, errB = Flow(b, a, method)
	}()
	fwd, err = Flow(a, b, method)
	wg.Wait()
	if err == nil {
		err = errB
	}
	return fwd, bwd, err
}

// Track runs the tracker on decoded frames of equal size. The flow of pair
// t+1 is computed while the tracker processes pair t.
func Track(frames []*image.Gray, opt trajectory.TrackerOptions, method Method, progress func(done, total int)) (*trajectory.TrackSet, trajectory.TrackerStats, error) {
	return TrackKeeping(frames, opt, method, nil, progress)
}

// TrackKeeping is Track that hands pair t's forward flow F_{t→t+1} and
// backward flow F_{t+1→t} to keep (nil: none) before the tracker uses
// them; an error from keep ends the tracking.
func TrackKeeping(frames []*image.Gray, opt trajectory.TrackerOptions, method Method, keep func(t int, fwd, bwd *trajectory.FlowField) error, progress func(done, total int)) (*trajectory.TrackSet, trajectory.TrackerStats, error) {
	if len(frames) < 2 {
		return nil, trajectory.TrackerStats{}, fmt.Errorf("tracking needs at least 2 frames, got %d", len(frames))
	}
	w, h := frames[0].Bounds().Dx(), frames[0].Bounds().Dy()
	tr, err := trajectory.NewTracker(opt, w, h)
	if err != nil {
		return nil, trajectory.TrackerStats{}, err
	}
	total := len(frames) - 1
	flows := make(chan pairFlow, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(flows)
		for t := 0; t < total; t++ {
			f, b, err := FlowPair(frames[t], frames[t+1], method)
			select {
			case flows <- pairFlow{f, b, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	t := 0
	for pf := range flows {
		if pf.err != nil {
			return nil, trajectory.TrackerStats{}, fmt.Errorf("frames %d→%d: %w", t, t+1, pf.err)
		}
		if keep != nil {
			if err := keep(t, pf.fwd, pf.bwd); err != nil {
				return nil, trajectory.TrackerStats{}, err
			}
		}
		if err := tr.AddNext(frames[t], frames[t+1], pf.fwd, pf.bwd); err != nil {
			return nil, trajectory.TrackerStats{}, err
		}
		t++
		if progress != nil {
			progress(t, total)
		}
	}
	ts := tr.Finish()
	return ts, tr.Stats(), nil
}
