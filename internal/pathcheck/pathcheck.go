// Package pathcheck refuses an output path that names an input: writing it
// would destroy the input (atomically, but destroyed all the same).
package pathcheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// Path is a command-line path and the flag (or role) it was given with.
type Path struct {
	Flag string // e.g. "--out"
	Path string
	// Tree marks an output folder that is written or replaced as a whole:
	// an input inside it is refused as well.
	Tree bool
	// Within is, for a file read through an input folder or list (a frame
	// of --frames, a label image of --gt), the path given on the command
	// line; "" for the path itself.
	Within string
}

func (p Path) String() string {
	if p.Within != "" {
		return fmt.Sprintf("%s %s (%s)", p.Flag, p.Within, p.Path)
	}
	return p.Flag + " " + p.Path
}

// Distinct returns an error naming both flags when an output is the same
// file as an input: the same path after filepath.Abs, Clean and
// EvalSymlinks (of the path, or of its parent when it does not exist yet),
// or, when both exist, os.SameFile (hard links). An output marked Tree also
// conflicts with any input inside it. Empty paths are ignored.
func Distinct(outputs, inputs []Path) error {
	type resolved struct {
		p    Path
		r    string
		info os.FileInfo // nil: not there
	}
	ins := make([]resolved, 0, len(inputs))
	for _, in := range inputs {
		if in.Path == "" {
			continue
		}
		si, _ := os.Stat(in.Path)
		ins = append(ins, resolved{in, resolve(in.Path), si})
	}
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		ro := resolve(o.Path)
		so, errO := os.Stat(o.Path)
		for _, in := range ins {
			same := ro == in.r
			if !same && errO == nil && in.info != nil && os.SameFile(so, in.info) {
				same = true
			}
			if same {
				return fmt.Errorf("%s %s is the input %s: refusing to overwrite an input (choose another output)", o.Flag, o.Path, in.p)
			}
			if o.Tree && strings.HasPrefix(in.r, ro+string(filepath.Separator)) {
				return fmt.Errorf("%s %s would replace the folder holding the input %s: refusing to overwrite an input (choose another output)", o.Flag, o.Path, in.p)
			}
		}
	}
	return nil
}

// resolve returns the absolute, cleaned path with symbolic links resolved
// as far as the path exists.
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	// Resolve the longest existing ancestor, keep the rest as written.
	dir, rest := abs, ""
	for {
		parent := filepath.Dir(dir)
		rest = filepath.Join(filepath.Base(dir), rest)
		if parent == dir {
			return abs
		}
		dir = parent
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		} else if !errors.Is(err, os.ErrNotExist) {
			return abs
		}
	}
}

// nameMax is the longest file name (one path element, in bytes) of the usual
// Linux and macOS file systems (NAME_MAX).
const nameMax = 255

// Name checks that s, given as what (e.g. "--name"), is a name and not a
// path: one path element (no '/' or '\'), not "", "." or "..", at most 255
// bytes, and no control character (a newline would split a report's row
// or a list's line). A name used in an output file name could otherwise
// write outside the output folder ("../../x") or over an input.
func Name(what, s string) error {
	switch {
	case s == "" || s == "." || s == "..":
		return fmt.Errorf("%s %q is not a name", what, s)
	case strings.ContainsAny(s, `/\`):
		return fmt.Errorf("%s %q is a path: give a name (no / or \\)", what, s)
	case len(s) > nameMax:
		return fmt.Errorf("%s of %d bytes is longer than the %d a file name may have", what, len(s), nameMax)
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("%s %q holds the control character %U", what, s, r)
		}
	}
	return nil
}
