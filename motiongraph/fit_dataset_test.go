package motiongraph

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/trajectory"
)

// countingTracker tracks any sequence as one 2-point trajectory whose x is
// the number of calls so far, and describes its flow by flowParams.
type countingTracker struct {
	calls      int
	flowParams string
}

func (c *countingTracker) TrackSequence(frames []string, _ trajectory.TrackerOptions, _ string, _ func(int, int)) (*trajectory.TrackSet, error) {
	c.calls++
	x := float64(c.calls)
	return &trajectory.TrackSet{Frames: len(frames), Tracks: []trajectory.Track{{Points: []trajectory.Point{{X: x, Y: 1, Frame: 0}, {X: x, Y: 2, Frame: 1}}}}}, nil
}

func (c *countingTracker) FlowParams(string) string { return c.flowParams }

// The track cache of fit-costs is used only for the configuration and frames
// that made it: another spacing, other flow parameters, changed frames or a
// cache without its record are tracked again (and say so); tracks that come
// with the dataset are used as they are.
func TestCachedTracksTracksAgainWhenTheConfigurationChanges(t *testing.T) {
	dir := t.TempDir()
	frames, cacheDir := filepath.Join(dir, "frames"), filepath.Join(dir, "tracks")
	os.MkdirAll(frames, 0o755)
	os.MkdirAll(cacheDir, 0o755)
	for _, n := range []string{"00000.png", "00001.png"} {
		os.WriteFile(filepath.Join(frames, n), []byte("x"), 0o644)
	}
	tr := &countingTracker{flowParams: "{Patch:12}"}
	opt := FitDatasetOptions{Tracker: tr, TrackerOptions: trajectory.DefaultTrackerOptions(), Flow: "dis"}
	get := func(wantCalls int, wantLog string) {
		t.Helper()
		var log bytes.Buffer
		ts, _, err := cachedTracks("seq", frames, cacheDir, opt, &log)
		if err != nil {
			t.Fatal(err)
		}
		if tr.calls != wantCalls || ts.Tracks[0].Points[0].X != float64(wantCalls) {
			t.Errorf("tracker called %d times (tracks of call %g), want %d", tr.calls, ts.Tracks[0].Points[0].X, wantCalls)
		}
		if !strings.Contains(log.String(), wantLog) {
			t.Errorf("log %q lacks %q", log.String(), wantLog)
		}
	}
	get(1, "")                   // tracked and cached
	get(1, "")                   // from the cache
	opt.TrackerOptions.Spacing++ // another grid
	get(2, "other tracker or flow settings")
	get(2, "")
	tr.flowParams = "{Patch:8}" // another flow configuration
	get(3, "other tracker or flow settings")
	os.WriteFile(filepath.Join(frames, "00001.png"), []byte("xy"), 0o644)
	get(4, "the frames changed")
	os.Remove(filepath.Join(cacheDir, "seqTracks2.dat.json"))
	get(5, "no record") // written before records existed
	opt.Tracker = nil   // nothing to track with: the cache, with a warning
	get(5, "no tracker to track again")
	// The dataset's own tracks win, whatever the cache.
	os.Rename(filepath.Join(cacheDir, "seqTracks2.dat"), filepath.Join(frames, "seqTracks2.dat"))
	opt.Tracker = tr
	get(5, "")
}
