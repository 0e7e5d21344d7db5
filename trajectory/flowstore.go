package trajectory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/checksum"
	"github.com/densify/densify/internal/fileerr"
	"github.com/densify/densify/internal/npy"
)

// FlowStore is a folder of dense flow fields between frames of one
// sequence, so that a later stage uses the flows an earlier one computed
// instead of computing them again: the tracker keeps F_{t→t+1} and
// F_{t+1→t} of every consecutive pair, and the temporal fusion of
// predicted masks (package refine) needs the same fields for its
// neighbours one frame away.
//
// The folder holds flows.json (FlowManifest: the flow's description and
// the frames' names, sizes and modification times) and one file
// <from>_<to>.npy per field, float32 of shape [2, H, W] (U then V,
// row-major). A store opened for other frames or another flow is refused,
// so a stale folder is never read as the current one's.
type FlowStore struct {
	Dir      string
	manifest FlowManifest
}

// FlowManifest identifies what a FlowStore's fields were computed from.
type FlowManifest struct {
	Flow   string       `json:"flow"` // method and parameters, e.g. "dis {Preset:2 …}"
	Width  int          `json:"width"`
	Height int          `json:"height"`
	Frames []FrameStamp `json:"frames"`
}

// FrameStamp identifies a frame file by name, size and modification time,
// and by the CRC-32C of its bytes (hex; empty in stores written before it
// was recorded), so that a frame copied again with the same contents still
// matches (sameFrame).
type FrameStamp struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mod_time_ns"`
	CRC     string `json:"crc32c,omitempty"`
}

// sameFrame reports whether a store's frame stamp a describes the frame
// stamped now as b: same name and size, and the same modification time or,
// where both record one, the same CRC.
func sameFrame(a, b FrameStamp) bool {
	if a.Name != b.Name || a.Size != b.Size {
		return false
	}
	return a.ModTime == b.ModTime || (a.CRC != "" && a.CRC == b.CRC)
}

// FlowManifestFile is the manifest's name inside a FlowStore's folder.
const FlowManifestFile = "flows.json"

// NewFlowManifest stamps the frames (paths in sequence order, all w×h) for
// flows described by flow.
func NewFlowManifest(frames []string, flow string, w, h int) (FlowManifest, error) {
	m := FlowManifest{Flow: flow, Width: w, Height: h, Frames: make([]FrameStamp, len(frames))}
	for i, p := range frames {
		st, err := os.Stat(p)
		if err != nil {
			return FlowManifest{}, fmt.Errorf("flow store: %w", err)
		}
		crc, _, err := checksum.File(p)
		if err != nil {
			return FlowManifest{}, fmt.Errorf("flow store: %w", err)
		}
		m.Frames[i] = FrameStamp{Name: filepath.Base(p), Size: st.Size(), ModTime: st.ModTime().UnixNano(), CRC: fmt.Sprintf("%08x", crc)}
	}
	return m, nil
}

// CreateFlowStore makes an empty store at dir for m, replacing an earlier
// store there (the fields of an earlier tracking). A dir that holds
// anything else is refused before anything is removed.
func CreateFlowStore(dir string, m FlowManifest) (*FlowStore, error) {
	if err := atomicfile.CheckReplaceable(dir, "flow store", ownFlowFile); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("flow store: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("flow store: %w", err)
	}
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, FlowManifestFile), append(b, '\n')); err != nil {
		return nil, fmt.Errorf("flow store: %w", err)
	}
	return &FlowStore{Dir: dir, manifest: m}, nil
}

// OpenFlowStore opens the store at dir if it was made for exactly the
// manifest want (same flow, frame size and frames); otherwise it returns
// an error saying why, which wraps fs.ErrNotExist when there is no store.
func OpenFlowStore(dir string, want FlowManifest) (*FlowStore, error) {
	path := filepath.Join(dir, FlowManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("flow store: %w", err)
	}
	var m FlowManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fileerr.New(path, 0, "flow store: %v", err)
	}
	switch {
	case m.Flow != want.Flow:
		return nil, fmt.Errorf("%s: flows of %q, not %q", path, m.Flow, want.Flow)
	case m.Width != want.Width || m.Height != want.Height:
		return nil, fmt.Errorf("%s: flows of %dx%d frames, not %dx%d", path, m.Width, m.Height, want.Width, want.Height)
	case len(m.Frames) != len(want.Frames):
		return nil, fmt.Errorf("%s: flows of %d frames, not %d", path, len(m.Frames), len(want.Frames))
	}
	for i := range m.Frames {
		if !sameFrame(m.Frames[i], want.Frames[i]) {
			return nil, fmt.Errorf("%s: made for frame %d %+v, which is now %+v", path, i, m.Frames[i], want.Frames[i])
		}
	}
	return &FlowStore{Dir: dir, manifest: m}, nil
}

// RemoveFlowStore removes the store at dir (nothing when there is none);
// a folder that holds anything but a store's files is refused and kept.
func RemoveFlowStore(dir string) error {
	if err := atomicfile.CheckReplaceable(dir, "flow store", ownFlowFile); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// ownFlowFile accepts what a FlowStore holds (relative paths): its
// manifest, its fields and the temporaries of an interrupted write.
func ownFlowFile(rel string, isDir bool) bool {
	return !isDir && flowFileName.MatchString(rel)
}

// flowFileName matches a field, the manifest, and the temporary of either
// (atomicfile.TempPattern: "." + name + ".tmp" + digits).
var flowFileName = regexp.MustCompile(`^([0-9]{5,}_[0-9]{5,}\.npy|flows\.json)$|^\.([0-9]{5,}_[0-9]{5,}\.npy|flows\.json)\.tmp[0-9]+$`)

func (s *FlowStore) path(from, to int) string {
	return filepath.Join(s.Dir, fmt.Sprintf("%05d_%05d.npy", from, to))
}

func (s *FlowStore) checkPair(from, to int) error {
	n := len(s.manifest.Frames)
	if from < 0 || to < 0 || from >= n || to >= n || from == to {
		return fmt.Errorf("flow store: no frame pair %d→%d in a sequence of %d frames", from, to, n)
	}
	return nil
}

// Put writes F_{from→to} (frames by position in the sequence), atomically.
func (s *FlowStore) Put(from, to int, f *FlowField) error {
	if err := s.checkPair(from, to); err != nil {
		return err
	}
	if err := f.Validate(); err != nil {
		return fmt.Errorf("flow store: %w", err)
	}
	if f.W != s.manifest.Width || f.H != s.manifest.Height {
		return fmt.Errorf("flow store: a %dx%d field for %dx%d frames", f.W, f.H, s.manifest.Width, s.manifest.Height)
	}
	data := make([]float32, 0, 2*f.W*f.H)
	data = append(append(data, f.U...), f.V...)
	return npy.Write(s.path(from, to), &npy.Array{Shape: []int{2, f.H, f.W}, F32: data})
}

// PutPair writes what the tracker computes for the frames t and t+1: the
// forward field F_{t→t+1} and the backward field F_{t+1→t}.
func (s *FlowStore) PutPair(t int, fwd, bwd *FlowField) error {
	if err := s.Put(t, t+1, fwd); err != nil {
		return err
	}
	return s.Put(t+1, t, bwd)
}

// Get reads F_{from→to}; the error wraps fs.ErrNotExist when the store
// does not hold it, and names the file when it is not a field of the
// store's frame size.
func (s *FlowStore) Get(from, to int) (*FlowField, error) {
	if err := s.checkPair(from, to); err != nil {
		return nil, err
	}
	path := s.path(from, to)
	W, H := s.manifest.Width, s.manifest.Height
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > int64(8*W*H+1<<16) { // bounds the read whatever the file
		return nil, fileerr.New(path, 0, "flow store: %d bytes, more than a %dx%d field", st.Size(), W, H)
	}
	a, err := npy.Read(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("flow store: %w", err)
	}
	if a.F32 == nil || len(a.Shape) != 3 || a.Shape[0] != 2 || a.Shape[1] != H || a.Shape[2] != W {
		return nil, fileerr.New(path, 0, "flow store: array %s%v, want <f4[2 %d %d]", a.Descr(), a.Shape, H, W)
	}
	n := W * H
	return &FlowField{W: W, H: H, U: a.F32[:n:n], V: a.F32[n:]}, nil
}

// DescribeFlow is the description of a flow method and its parameters
// (FlowDescriber) that a FlowStore records and checks.
func DescribeFlow(method, params string) string { return method + " " + params }
