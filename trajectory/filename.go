package trajectory

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// TracksFileName is the FBMS name of a sequence's Tracks file,
// <name>Tracks<frames>.dat (MoSegEval derives the evaluated length from it).
func TracksFileName(name string, frames int) string {
	return fmt.Sprintf("%sTracks%d.dat", name, frames)
}

var tracksFileRE = regexp.MustCompile(`^(.*)Tracks(\d+)\.dat$`)

// SequenceName is the sequence name a Tracks file is named after: <name> of
// <name>Tracks<frames>.dat (frames > 0, ok true), otherwise the file name
// without its extension (frames 0, ok false).
func SequenceName(path string) (name string, frames int, ok bool) {
	base := filepath.Base(path)
	if m := tracksFileRE.FindStringSubmatch(base); m != nil {
		if n, err := strconv.Atoi(m[2]); err == nil {
			return m[1], n, true
		}
	}
	return strings.TrimSuffix(base, filepath.Ext(base)), 0, false
}
