// Package trajectory holds point trajectories, their FBMS Tracks file format
// and the trajectory tracker (pure Go, fed with dense optical flow by the
// video adapter; Brox & Malik ECCV 2010, Sundaram, Brox & Keutzer ECCV 2010).
package trajectory

// Point is one sample of a trajectory: sub-pixel image position (x to the
// right, y down, pixel centres at integer coordinates) in a 0-based frame.
type Point struct {
	X, Y  float64
	Frame int
}

// Track is a point trajectory: consecutive frames, one point per frame.
// Label is the cluster id (0 before segmentation, as in FBMS files).
type Track struct {
	Label  int
	Points []Point
}

// TrackSet is the content of an FBMS Tracks*.dat file.
type TrackSet struct {
	Frames int // number of frames of the sequence (first line of the file)
	Tracks []Track
}

// Start returns the first frame of the track (or -1 for an empty track).
func (t *Track) Start() int {
	if len(t.Points) == 0 {
		return -1
	}
	return t.Points[0].Frame
}

// End returns the last frame of the track (or -1 for an empty track).
func (t *Track) End() int {
	if len(t.Points) == 0 {
		return -1
	}
	return t.Points[len(t.Points)-1].Frame
}

// At returns the point of the track in frame f, if the track is alive there.
// Tracks are contiguous in time, so this is O(1).
func (t *Track) At(f int) (Point, bool) {
	s := t.Start()
	if s < 0 || f < s || f > t.End() {
		return Point{}, false
	}
	p := t.Points[f-s]
	if p.Frame != f { // non-contiguous track read from a file: fall back to a scan
		for _, q := range t.Points {
			if q.Frame == f {
				return q, true
			}
		}
		return Point{}, false
	}
	return p, true
}
