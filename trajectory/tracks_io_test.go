package trajectory

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseTracksHandWritten(t *testing.T) {
	// Label and size on one line (tracker output) and on two lines (also read
	// by MoSegEval's operator>>); frames written as floats by the tracker.
	src := "3\n2\n0 2\n1.5 2.25 0\n2 3 1\n" +
		"4\n1\n-0.5 1e3 2.0\n"
	ts, err := ParseTracks(strings.NewReader(src), "a.dat")
	if err != nil {
		t.Fatal(err)
	}
	want := &TrackSet{Frames: 3, Tracks: []Track{
		{Label: 0, Points: []Point{{1.5, 2.25, 0}, {2, 3, 1}}},
		{Label: 4, Points: []Point{{-0.5, 1000, 2}}},
	}}
	if !reflect.DeepEqual(ts, want) {
		t.Fatalf("got %+v\nwant %+v", ts, want)
	}
	var buf bytes.Buffer
	if err := EncodeTracks(&buf, ts); err != nil {
		t.Fatal(err)
	}
	wantText := "3\n2\n0 2\n1.5 2.25 0\n2 3 1\n4 1\n-0.5 1000 2\n"
	if buf.String() != wantText {
		t.Fatalf("encoded\n%q\nwant\n%q", buf.String(), wantText)
	}
}

func randomTrackSet(rng *rand.Rand) *TrackSet {
	ts := &TrackSet{Frames: 1 + rng.IntN(40)}
	for range rng.IntN(50) {
		start := rng.IntN(ts.Frames)
		n := 1 + rng.IntN(ts.Frames-start)
		tr := Track{Label: rng.IntN(7) - 1}
		for k := range n {
			// Awkward floats: random bits of mantissa, tiny and huge values.
			// (Within ±MaxCoordinate, the bound of the format.)
			x := math.Mod(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(12)-4)), MaxCoordinate)
			y := rng.Float64() * 480
			tr.Points = append(tr.Points, Point{X: x, Y: y, Frame: start + k})
		}
		ts.Tracks = append(ts.Tracks, tr)
	}
	return ts
}

func TestTracksRoundTripExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for i := range 50 {
		ts := randomTrackSet(rng)
		p := filepath.Join(dir, "Tracks.dat")
		if err := WriteTracks(p, ts); err != nil {
			t.Fatal(err)
		}
		got, err := ReadTracks(p)
		if err != nil {
			t.Fatal(err)
		}
		if ts.Tracks == nil {
			ts.Tracks = []Track{}
		}
		if !reflect.DeepEqual(got, ts) {
			t.Fatalf("case %d: round trip differs", i)
		}
	}
}

func TestParseTracksErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"empty", "", "t.dat:1: unexpected end of file, expected number of frames"},
		{"frames not a number", "abc\n", "t.dat:1: number of frames: \"abc\" is not an integer"},
		{"negative tracks", "3\n-1\n", "t.dat:2: number of tracks -1 out of range"},
		{"float count", "3\n1.5\n", "t.dat:2: number of tracks: \"1.5\" is not an integer"},
		{"truncated", "3\n2\n0 1\n1 2 0\n1\n", "t.dat:5: unexpected end of file, expected number of points of track 1"},
		{"truncated point", "3\n1\n0 2\n1 2 0\n1 2\n", "t.dat:5: unexpected end of file, expected frame"},
		{"nan", "3\n1\n0 1\nNaN 2 0\n", "t.dat:4: x: \"NaN\" is not a finite number"},
		{"inf", "3\n1\n0 1\n1 +Inf 0\n", "t.dat:4: y: \"+Inf\" is not a finite number"},
		{"overflow", "3\n1\n0 1\n1 1e400 0\n", "t.dat:4: y: \"1e400\" is not a finite number"},
		{"word", "3\n1\n0 1\n1 two 0\n", "t.dat:4: y: \"two\" is not a number"},
		{"far", "3\n1\n0 1\n1e308 2 0\n", "t.dat:4: point (1e+308, 2) of track 0 lies beyond ±1e+06 pixels: no frame is that large"},
		{"frame out of range", "3\n1\n0 1\n1 2 3\n", "t.dat:4: frame 3 of track 0 outside [0, 3)"},
		{"negative frame", "3\n1\n0 1\n1 2 -1\n", "t.dat:4: frame -1 of track 0 outside [0, 3)"},
		{"fractional frame", "3\n1\n0 1\n1 2 0.5\n", "t.dat:4: frame 0.5 of track 0 is not an integer"},
		{"decreasing", "3\n1\n0 2\n1 2 1\n1 2 1\n", "t.dat:5: frames of track 0 do not increase (1 after 1)"},
		{"empty track", "3\n1\n0 0\n", "t.dat:3: number of points of track 0 0 out of range"},
		{"trailing", "3\n1\n0 1\n1 2 0\n7\n", "t.dat:5: unexpected data \"7\" after the last of 1 tracks"},
		{"label not int", "3\n1\nx 1\n1 2 0\n", "t.dat:3: label of track 0: \"x\" is not an integer"},
		{"huge count", "3\n2147483647\n0 1\n1 2 0\n", "t.dat:4: unexpected end of file, expected label of track 1"},
		{"huge frame count", "2147483647\n1\n0 1\n1 2 0\n", "t.dat:1: number of frames 2147483647 out of range [0, 100000]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseTracks(strings.NewReader(c.src), "t.dat")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got %v\nwant prefix %q", err, c.want)
			}
		})
	}
}

func TestWriteTracksRejectsInvalidWithoutOutput(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "T.dat")
	bad := []*TrackSet{
		{Frames: 2, Tracks: []Track{{Points: nil}}},
		{Frames: 2, Tracks: []Track{{Points: []Point{{math.NaN(), 0, 0}}}}},
		{Frames: 2, Tracks: []Track{{Points: []Point{{0, 0, 2}}}}},
		{Frames: 2, Tracks: []Track{{Points: []Point{{0, 0, 1}, {0, 0, 0}}}}},
	}
	for i, ts := range bad {
		if err := WriteTracks(p, ts); err == nil {
			t.Fatalf("case %d: no error", i)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("case %d: output written", i)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("case %d: left %v", i, ents)
		}
	}
}

func TestReadTracksMissingFile(t *testing.T) {
	if _, err := ReadTracks(filepath.Join(t.TempDir(), "none.dat")); err == nil {
		t.Fatal("no error for a missing file")
	}
}

func TestParseTracksLongLine(t *testing.T) {
	// A single line longer than the reader's buffer still splits correctly.
	var sb strings.Builder
	sb.WriteString("2 1 0 20000")
	for i := range 20000 {
		_ = i
		sb.WriteString(" 1.25 2.5 ")
		if i == 0 {
			sb.WriteString("0")
		} else {
			sb.WriteString("1")
		}
	}
	_, err := ParseTracks(strings.NewReader(sb.String()), "long.dat")
	if err == nil || !strings.Contains(err.Error(), "long.dat:1: frames of track 0 do not increase") {
		t.Fatalf("got %v", err)
	}
	ts, err := ParseTracks(strings.NewReader("2 1 0 2 1.25 2.5 0 "+strings.Repeat(" ", 100000)+"3 4 1"), "long.dat")
	if err != nil || len(ts.Tracks[0].Points) != 2 || ts.Tracks[0].Points[1].X != 3 {
		t.Fatalf("got %+v, %v", ts, err)
	}
}

func FuzzParseTracks(f *testing.F) {
	f.Add([]byte("3\n2\n0 2\n1.5 2.25 0\n2 3 1\n4\n1\n-0.5 1e3 2.0\n"))
	f.Add([]byte("1\n1\n0 1\n0 0 0\n"))
	f.Add([]byte("10\n99999999\n0 99999999\n"))
	f.Add([]byte("3\n1\n0 1\nNaN 2 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := ParseTracks(bytes.NewReader(data), "fuzz.dat")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.dat:") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		// Whatever parses must encode and parse back to the same value.
		var buf bytes.Buffer
		if err := EncodeTracks(&buf, ts); err != nil {
			t.Fatalf("parsed set does not encode: %v", err)
		}
		back, err := ParseTracks(&buf, "again.dat")
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if !reflect.DeepEqual(back, ts) {
			t.Fatal("round trip differs")
		}
	})
}

func BenchmarkParseTracks(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	ts := &TrackSet{Frames: 50}
	points := 0
	for range 5000 {
		start := rng.IntN(40)
		tr := Track{Label: rng.IntN(5)}
		for f := start; f < start+10; f++ {
			tr.Points = append(tr.Points, Point{X: rng.Float64() * 854, Y: rng.Float64() * 480, Frame: f})
		}
		points += len(tr.Points)
		ts.Tracks = append(ts.Tracks, tr)
	}
	var buf bytes.Buffer
	if err := EncodeTracks(&buf, ts); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ParseTracks(bytes.NewReader(data), "bench.dat"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(points)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}
