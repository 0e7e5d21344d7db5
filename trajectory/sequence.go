package trajectory

// SequenceTracker computes the point trajectories of a frame sequence (frame
// paths in order) with the tracker options opt on the optical flow of the
// named method ("dis" or "farneback"). progress, when not nil, gets the
// number of frame pairs done and their total.
//
// Optical flow needs OpenCV, so packages without cgo (pipeline, the cost fit
// of motiongraph) take a SequenceTracker as a parameter; video.Tracker is the
// OpenCV implementation that cmd/densify hands them.
type SequenceTracker interface {
	TrackSequence(frames []string, opt TrackerOptions, flow string, progress func(done, total int)) (*TrackSet, error)
}

// FlowDescriber is implemented by a SequenceTracker whose optical flow has
// parameters beyond its method name. FlowParams describes those of the named
// method (the empty string when it has none), so that a stage that caches
// trajectories can record them and track again when they change.
type FlowDescriber interface {
	FlowParams(flow string) string
}

// FlowKeeper is implemented by a SequenceTracker that can hand the flows it
// computes to keep as it goes: for every consecutive pair t, t+1 the
// forward field F_{t→t+1} and the backward field F_{t+1→t}, in pair order.
// An error from keep ends the tracking with it. The pipeline keeps them in
// a FlowStore for the temporal fusion of the predicted masks, which needs
// the same fields.
type FlowKeeper interface {
	TrackSequenceKeeping(frames []string, opt TrackerOptions, flow string, keep func(t int, fwd, bwd *FlowField) error, progress func(done, total int)) (*TrackSet, error)
}
