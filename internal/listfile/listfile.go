// Package listfile splits the lines of densify's list files (eval
// --dataset, sparsify --dataset) into fields.
//
// Format: one record per line; '#' starts a comment that runs to the end of
// the line; blank lines are skipped. A line that contains a tab character
// is split at tabs only, so its fields (paths) may contain spaces; leading
// and trailing spaces of each field are removed and empty fields (two tabs
// in a row) are dropped. A line without a tab is split at runs of white
// space, the original format, which therefore keeps working.
package listfile

import "strings"

// Fields returns the fields of one list line (nil for a blank or comment
// line).
func Fields(line string) []string {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	if !strings.Contains(line, "\t") {
		if f := strings.Fields(line); len(f) > 0 {
			return f
		}
		return nil
	}
	var out []string
	for _, f := range strings.Split(line, "\t") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
