package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/checksum"
)

// Stamp records a finished stage in <sequence>/.stamps/<stage>.json. It is
// written after every output of the stage, so its presence means the stage
// completed; its modification time is the stage's completion time.
type Stamp struct {
	Stage    string          `json:"stage"`
	Params   json.RawMessage `json:"params"`
	Seconds  float64         `json:"seconds"`
	Finished time.Time       `json:"finished"`
	Outputs  []string        `json:"outputs"`
	Info     json.RawMessage `json:"info,omitempty"` // stage summary (counts, scores)
	// Inputs is the digest of the inputs' contents when the stage started
	// (inputDigest; empty in stamps written before it existed): a stage
	// whose inputs carry newer times but the same contents (a dataset
	// copied again) is still up to date.
	Inputs string `json:"inputs_digest,omitempty"`
}

// stage describes one run of a stage: its parameters, the paths it reads and
// the paths it writes (files or folders).
type stage struct {
	name    string
	params  any
	inputs  []string
	outputs []string
}

// StageStatus says why a stage runs or is skipped.
type StageStatus struct {
	Stage   string  `json:"stage"`
	Skipped bool    `json:"skipped"`
	Reason  string  `json:"reason"`
	Seconds float64 `json:"seconds"` // of this run, or of the stamped run when skipped
}

// latest returns the newest modification time of path; for a folder, of the
// folder and every file below it. Missing paths are an error.
func latest(path string) (time.Time, error) {
	st, err := os.Stat(path)
	if err != nil {
		return time.Time{}, err
	}
	t := st.ModTime()
	if !st.IsDir() {
		return t, nil
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.ModTime().After(t) {
			t = info.ModTime()
		}
		return nil
	})
	return t, err
}

func stampPath(seqDir, name string) string {
	return filepath.Join(seqDir, ".stamps", name+".json")
}

// readStamp returns the stamp of a stage, or nil when there is none (or it
// cannot be read: the stage then simply runs again).
func readStamp(seqDir, name string) (*Stamp, time.Time) {
	p := stampPath(seqDir, name)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, time.Time{}
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, time.Time{}
	}
	var s Stamp
	if json.Unmarshal(data, &s) != nil {
		return nil, time.Time{}
	}
	return &s, st.ModTime()
}

// freshness decides whether st must run: it is up to date when its stamp
// exists, records the same parameters, every output exists, and no input
// (file, or any file in an input folder) was modified after the stamp, or
// the inputs still have the digest the stamp records (inputDigest: newer
// times, same contents); then the stamp's time moves to now. digest is the
// inputs' digest where it had to compute it ("" otherwise), so that a
// stage that runs need not read its inputs again for its stamp.
func freshness(seqDir string, st stage, force bool) (ok bool, why string, old *Stamp, digest string) {
	if force {
		return false, "forced", nil, ""
	}
	s, when := readStamp(seqDir, st.name)
	if s == nil {
		return false, "no stamp", nil, ""
	}
	want, err := json.Marshal(st.params)
	if err != nil {
		return false, "parameters: " + err.Error(), nil, ""
	}
	if !bytes.Equal(compactJSON(s.Params), compactJSON(want)) {
		return false, "parameters changed", nil, ""
	}
	for _, o := range st.outputs {
		if _, err := os.Stat(o); err != nil {
			return false, "missing " + o, nil, ""
		}
	}
	for _, in := range st.inputs {
		t, err := latest(in)
		if err != nil {
			return false, "input " + in + ": " + err.Error(), nil, ""
		}
		if t.After(when) {
			if s.Inputs == "" {
				return false, "newer input " + in, nil, ""
			}
			d, err := inputDigest(st.inputs)
			if err != nil || d != s.Inputs {
				return false, "newer input " + in, nil, d
			}
			// the same contents: later checks need not read them again
			now := time.Now()
			os.Chtimes(stampPath(seqDir, st.name), now, now)
			return true, "up to date (newer input times, same contents)", s, d
		}
	}
	return true, "up to date", s, ""
}

// inputDigest is a digest of the contents of paths (files, or folders with
// every file below them): SHA-256 over, per path in order and per file in
// lexical order, the file's name relative to the path, its size and the
// CRC-32C of its bytes. Names outside the paths and modification times do
// not enter it, so a copy of the same inputs elsewhere has the same digest.
func inputDigest(paths []string) (string, error) {
	h := sha256.New()
	for i, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			crc, n, err := checksum.File(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%d\x00%s\x00%d\x00%08x\n", i, filepath.ToSlash(rel), n, crc)
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// writeStamp records st as finished (after its outputs), with the digest
// of its inputs as they were when it started.
func writeStamp(seqDir string, st stage, secs float64, info any, inputs string) error {
	params, err := json.Marshal(st.params)
	if err != nil {
		return err
	}
	s := Stamp{Stage: st.name, Params: params, Seconds: secs, Finished: time.Now().UTC(), Outputs: st.outputs, Inputs: inputs}
	if info != nil {
		if s.Info, err = json.Marshal(info); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(stampPath(seqDir, st.name)), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteBytes(stampPath(seqDir, st.name), append(data, '\n'))
}

// runStage runs do unless st is up to date (do gets the reason). do returns the stage's
// summary (stored in the stamp). A skipped stage returns the stamped summary
// decoded into info (when info is non-nil).
func (p *seqRun) runStage(st stage, info any, do func(why string) (any, error)) (StageStatus, error) {
	ok, why, old, digest := freshness(p.dir, st, p.opt.Force)
	if ok {
		if info != nil && len(old.Info) > 0 {
			if err := json.Unmarshal(old.Info, info); err != nil {
				return StageStatus{}, fmt.Errorf("%s: %w", stampPath(p.dir, st.name), err)
			}
		}
		fmt.Fprintf(p.opt.log(), "%s: %-12s skipped (%s, took %.1fs)\n", p.name, st.name, why, old.Seconds)
		s := StageStatus{Stage: st.name, Skipped: true, Reason: why, Seconds: old.Seconds}
		p.status = append(p.status, s)
		return s, nil
	}
	fmt.Fprintf(p.opt.log(), "%s: %-12s running (%s)\n", p.name, st.name, why)
	// A stale stamp must not survive a failed rerun.
	if err := os.Remove(stampPath(p.dir, st.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return StageStatus{}, err
	}
	// the digest of the inputs this run reads, unless freshness computed
	// it (empty when one is missing: do then fails, or the stamp lacks it)
	if digest == "" {
		digest, _ = inputDigest(st.inputs)
	}
	t0 := time.Now()
	res, err := do(why)
	if err != nil {
		return StageStatus{}, fmt.Errorf("%s: %s: %w", p.name, st.name, err)
	}
	secs := time.Since(t0).Seconds()
	if err := writeStamp(p.dir, st, secs, res, digest); err != nil {
		return StageStatus{}, err
	}
	if info != nil && res != nil {
		// round-trip so that callers see the same value as when skipped
		b, err := json.Marshal(res)
		if err == nil {
			err = json.Unmarshal(b, info)
		}
		if err != nil {
			return StageStatus{}, err
		}
	}
	fmt.Fprintf(p.opt.log(), "%s: %-12s done in %.1fs\n", p.name, st.name, secs)
	s := StageStatus{Stage: st.name, Reason: why, Seconds: secs}
	p.status = append(p.status, s)
	return s, nil
}
