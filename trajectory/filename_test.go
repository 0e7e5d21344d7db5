package trajectory

import "testing"

func TestTracksFileName(t *testing.T) {
	if got := TracksFileName("cars1", 19); got != "cars1Tracks19.dat" {
		t.Errorf("TracksFileName = %q", got)
	}
	for _, c := range []struct {
		path, name string
		frames     int
		ok         bool
	}{
		{"/a/b/cars1Tracks19.dat", "cars1", 19, true},
		{"x/synth01Tracks30_gt.dat", "synth01Tracks30_gt", 0, false},
		{"tracks.dat", "tracks", 0, false},
	} {
		if n, f, ok := SequenceName(c.path); n != c.name || f != c.frames || ok != c.ok {
			t.Errorf("%s: %q %d %v, want %q %d %v", c.path, n, f, ok, c.name, c.frames, c.ok)
		}
	}
}
