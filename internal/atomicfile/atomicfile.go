// Package atomicfile writes files so that a failure never leaves partial
// output: data goes to a temporary file in the same folder, which is renamed
// over the destination only after it was written and closed successfully.
package atomicfile

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// NameMax is the longest file name (one path element, in bytes) that the
// usual Linux and macOS file systems accept (NAME_MAX).
const NameMax = 255

// randomDigits is the most that os.CreateTemp and os.MkdirTemp put in place
// of '*' (the decimal digits of a uint32).
const randomDigits = 10

// TempPattern returns the os.CreateTemp / os.MkdirTemp pattern of a hidden
// temporary sibling of the file or folder named base:
// "."+base+".tmp*" when the resulting name stays within NameMax, otherwise
// ".tmp-" + 16 hex digits of SHA-256(base) + "-*" (still unique per base,
// 31 bytes at most). A legal output name of up to 255 bytes therefore
// always gets a legal temporary name.
func TempPattern(base string) string {
	if p := "." + base + ".tmp*"; len(p)-1+randomDigits <= NameMax {
		return p
	}
	return ".tmp-" + shortHash(base) + "-*"
}

// Beside returns the name base+suffix (e.g. "masks.old") when it stays
// within NameMax, otherwise "." + 16 hex digits of SHA-256(base) + suffix.
func Beside(base, suffix string) string {
	if len(base)+len(suffix) <= NameMax {
		return base + suffix
	}
	return "." + shortHash(base) + suffix
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// Write creates path atomically with the content produced by fill.
// Parent folders are created as needed.
func Write(path string, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create folder for %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, TempPattern(filepath.Base(path)))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = fill(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// WriteJSON writes v to path atomically as JSON indented by two spaces,
// with a final newline (json.Encoder).
func WriteJSON(path string, v any) error {
	return Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// WritePNG encodes img as PNG to path atomically.
func WritePNG(path string, img image.Image) error {
	return Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}

// previewEncoder compresses fast: a preview's pixels are the same at any
// level, and the default level spends 0.2 s of a core on a 854×480 one.
var previewEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// WritePreviewPNG encodes img as PNG to path atomically with the fastest
// compression, for the pictures written per frame for people to look at
// (overlays, heat maps, label previews): the same pixels as WritePNG in a
// larger file.
func WritePreviewPNG(path string, img image.Image) error {
	return Write(path, func(w io.Writer) error { return previewEncoder.Encode(w, img) })
}

// ReplaceDir moves the complete folder tmp (built beside dst) to dst,
// replacing an existing dst: dst is first renamed to dst+".old" (see
// Beside for names near the length limit), which is
// restored when the final rename fails and removed once it succeeded. A
// reader therefore sees the old folder or the new one, never a mixture.
func ReplaceDir(tmp, dst string) error {
	old := filepath.Join(filepath.Dir(dst), Beside(filepath.Base(dst), ".old"))
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	hadOld := true
	if err := os.Rename(dst, old); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("replace %s: %w", dst, err)
		}
		hadOld = false
	}
	if err := os.Rename(tmp, dst); err != nil {
		if hadOld {
			os.Rename(old, dst)
		}
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return os.RemoveAll(old)
}

// isTempOf reports whether name is a temporary of base made with
// TempPattern(base): the pattern with decimal digits in place of '*'.
func isTempOf(name, base string) bool {
	prefix, _, _ := strings.Cut(TempPattern(base), "*")
	digits, ok := strings.CutPrefix(name, prefix)
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// TempDir creates the hidden temporary folder (TempPattern) beside dst in
// which dst is built, to be moved into place with ReplaceDir (a failed run
// removes its own). The temporaries of dst that an earlier run left when
// it was killed are removed first: they are of the same kind, for the
// same destination, and nothing else reads them.
func TempDir(dst string) (string, error) {
	dst = filepath.Clean(dst)
	dir, base := filepath.Dir(dst), filepath.Base(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if isTempOf(e.Name(), base) {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
	tmp, err := os.MkdirTemp(dir, TempPattern(base))
	if err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

// CheckReplaceable checks, before any work, that the folder dir may be
// replaced as a whole by ReplaceDir: it is missing or empty, or every entry
// below it is one that own accepts (a path relative to dir, with / as
// separator; folders are asked before their entries) — an earlier output
// of the same kind. what names the folder in the error (e.g. "--out").
func CheckReplaceable(dir, what string, own func(rel string, isDir bool) bool) error {
	var stranger string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			if !d.IsDir() {
				return fmt.Errorf("%s %s is a file, not a folder", what, dir)
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if !own(filepath.ToSlash(rel), d.IsDir()) {
			stranger = p
			return fs.SkipAll
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if stranger != "" {
		return fmt.Errorf("%s %s holds %s, which densify did not write there: the folder is replaced as a whole, so give a new or empty folder", what, dir, stranger)
	}
	return nil
}
