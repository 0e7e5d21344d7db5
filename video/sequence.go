package video

import (
	"fmt"

	"github.com/densify/densify/trajectory"
)

// Tracker is the trajectory.SequenceTracker of this package: OpenCV optical
// flow (the method named by flow) and the point tracker, as TrackSequence.
type Tracker struct{}

// TrackSequence implements trajectory.SequenceTracker.
func (Tracker) TrackSequence(frames []string, opt trajectory.TrackerOptions, flow string, progress func(done, total int)) (*trajectory.TrackSet, error) {
	return TrackSequence(frames, opt, Method(flow), progress)
}

// TrackSequenceKeeping implements trajectory.FlowKeeper.
func (Tracker) TrackSequenceKeeping(frames []string, opt trajectory.TrackerOptions, flow string, keep func(t int, fwd, bwd *trajectory.FlowField) error, progress func(done, total int)) (*trajectory.TrackSet, error) {
	return TrackSequenceKeeping(frames, opt, Method(flow), keep, progress)
}

// FlowParams implements trajectory.FlowDescriber: the parameters the named
// method runs with (DefaultDIS, DefaultFarneback), "" for an unknown name.
func (Tracker) FlowParams(flow string) string {
	switch Method(flow) {
	case DIS:
		return fmt.Sprintf("%+v", DefaultDIS)
	case Farneback:
		return fmt.Sprintf("%+v", DefaultFarneback)
	}
	return ""
}

var (
	_ trajectory.SequenceTracker = Tracker{}
	_ trajectory.FlowDescriber   = Tracker{}
	_ trajectory.FlowKeeper      = Tracker{}
)
