package video

import "github.com/densify/densify/trajectory"

// Tracker is the trajectory.SequenceTracker of this package: OpenCV optical
// flow (the method named by flow) and the point tracker, as TrackSequence.
type Tracker struct{}

// TrackSequence implements trajectory.SequenceTracker.
func (Tracker) TrackSequence(frames []string, opt trajectory.TrackerOptions, flow string, progress func(done, total int)) (*trajectory.TrackSet, error) {
	return TrackSequence(frames, opt, Method(flow), progress)
}

var _ trajectory.SequenceTracker = Tracker{}
