package unet

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"reflect"
	"runtime"
	"sort"

	"github.com/sugarme/gotch"
)

// Checkpoint file format (one self-describing file, written atomically):
//
//	line 1   "densify-unet-checkpoint v1\n"
//	uint64   little-endian length L of the header
//	L bytes  header JSON: {"config": Config, "extra": any, "tensors": [{"name", "shape", "crc32"}]}
//	data     for each header tensor in order: its float32 values, little-endian, row-major
//
// The header records the preset/config, so loading a checkpoint into a model of
// another preset fails with an error naming both; "extra" is free-form JSON for the
// caller (e.g. the trainer's epoch, step and options). Tensors are every VarStore
// variable (weights and batch-norm running statistics), sorted by name; crc32 is
// IEEE over the tensor's bytes and catches corrupted or truncated files.
const checkpointMagic = "densify-unet-checkpoint v1\n"

// CheckpointHeader is the decoded header of a checkpoint file.
type CheckpointHeader struct {
	Config  Config            `json:"config"`
	Extra   json.RawMessage   `json:"extra,omitempty"`
	Tensors []CheckpointEntry `json:"tensors"`
}

// CheckpointEntry describes one stored tensor.
type CheckpointEntry struct {
	Name  string  `json:"name"`
	Shape []int64 `json:"shape"`
	CRC32 uint32  `json:"crc32"`
}

func (e CheckpointEntry) numel() int64 {
	n := int64(1)
	for _, d := range e.Shape {
		n *= d
	}
	return n
}

// Save writes all variables of m and extra (any JSON-marshalable value, or nil) to
// path atomically (no partial file on failure).
func (m *Model) Save(path string, extra any) error {
	vars := m.VS.Variables()
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	entries := make([]CheckpointEntry, len(names))
	values := make([][]float32, len(names))
	for i, n := range names {
		t := vars[n]
		shape, err := t.Size()
		if err != nil {
			return fmt.Errorf("checkpoint %s: %s: %w", path, n, err)
		}
		if values[i], err = Float32s(&t); err != nil {
			return fmt.Errorf("checkpoint %s: %s: %w", path, n, err)
		}
		entries[i] = CheckpointEntry{Name: n, Shape: shape}
	}
	return writeCheckpoint(path, m.Config, extra, entries, values)
}

// writeCheckpoint writes the tensors named and shaped by entries (their
// CRC32s are computed here) with their values, cfg and extra to path
// atomically.
func writeCheckpoint(path string, cfg Config, extra any, entries []CheckpointEntry, values [][]float32) error {
	h := CheckpointHeader{Config: cfg}
	if extra != nil {
		b, err := json.Marshal(extra)
		if err != nil {
			return fmt.Errorf("checkpoint %s: extra data: %w", path, err)
		}
		h.Extra = b
	}
	data := make([][]byte, len(values))
	for i, v := range values {
		data[i] = Float32Bytes(v)
		h.Tensors = append(h.Tensors, CheckpointEntry{Name: entries[i].Name, Shape: entries[i].Shape, CRC32: crc32.ChecksumIEEE(data[i])})
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return WriteTensorFile(path, checkpointMagic, hb, data)
}

// ReadCheckpointHeader reads only the header of a checkpoint.
func ReadCheckpointHeader(path string) (CheckpointHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return CheckpointHeader{}, err
	}
	defer f.Close()
	h, _, err := readHeader(path, bufio.NewReader(f))
	return h, err
}

func readHeader(path string, r *bufio.Reader) (CheckpointHeader, int64, error) {
	var h CheckpointHeader
	magic := make([]byte, len(checkpointMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != checkpointMagic {
		return h, 0, fmt.Errorf("%s: not a densify U-Net checkpoint (expected %q at the start)", path, checkpointMagic[:len(checkpointMagic)-1])
	}
	var n uint64
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return h, 0, fmt.Errorf("%s: truncated checkpoint header", path)
	}
	if n == 0 || n > 64<<20 {
		return h, 0, fmt.Errorf("%s: implausible checkpoint header length %d", path, n)
	}
	hb := make([]byte, n)
	if _, err := io.ReadFull(r, hb); err != nil {
		return h, 0, fmt.Errorf("%s: truncated checkpoint header", path)
	}
	dec := json.NewDecoder(bytes.NewReader(hb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return h, 0, fmt.Errorf("%s: checkpoint header: %v", path, err)
	}
	if err := h.Config.Validate(); err != nil {
		return h, 0, fmt.Errorf("%s: checkpoint config: %v", path, err)
	}
	var total int64
	for _, e := range h.Tensors {
		for _, d := range e.Shape {
			if d < 0 || d > 1<<31 {
				return h, 0, fmt.Errorf("%s: tensor %s has implausible shape %v", path, e.Name, e.Shape)
			}
		}
		total += e.numel()
	}
	return h, total, nil
}

// ReadCheckpoint reads a checkpoint's header and its tensors' values (in
// the header's order), checking every CRC32 and that nothing follows the
// last tensor; no model or libtorch is involved.
func ReadCheckpoint(path string) (CheckpointHeader, [][]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return CheckpointHeader{}, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return CheckpointHeader{}, nil, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	h, total, err := readHeader(path, r)
	if err != nil {
		return h, nil, err
	}
	if 4*total > fi.Size() { // memory stays bounded by the file, whatever the header claims
		return h, nil, fmt.Errorf("%s: the header announces %d values, more than the file's %d bytes hold (truncated checkpoint)", path, total, fi.Size())
	}
	values := make([][]float32, len(h.Tensors))
	for i, e := range h.Tensors {
		b := make([]byte, 4*e.numel())
		if _, err := io.ReadFull(r, b); err != nil {
			return h, nil, fmt.Errorf("%s: truncated checkpoint (in tensor %s)", path, e.Name)
		}
		if crc32.ChecksumIEEE(b) != e.CRC32 {
			return h, nil, fmt.Errorf("%s: tensor %s fails its CRC32 check (corrupted file)", path, e.Name)
		}
		values[i] = Float32sFromBytes(b)
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		return h, nil, fmt.Errorf("%s: unexpected data after the last tensor", path)
	}
	return h, values, nil
}

// Load reads the checkpoint at path into m, which must have the same configuration
// (preset name, width, depth, edges, classes) as the model that was saved; otherwise
// it returns an error naming both presets and leaves m unchanged. It returns the extra
// data stored by Save.
func (m *Model) Load(path string) (json.RawMessage, error) {
	h, err := ReadCheckpointHeader(path)
	if err != nil {
		return nil, err
	}
	if !sameArchitecture(h.Config, m.Config) {
		return nil, fmt.Errorf("%s: checkpoint is for preset %v, but the model is %v; use the matching --model preset or retrain", path, h.Config, m.Config)
	}
	h, values, err := ReadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	vars := m.VS.Variables()
	if len(vars) != len(h.Tensors) {
		return nil, fmt.Errorf("%s: checkpoint has %d tensors, the model %d", path, len(h.Tensors), len(vars))
	}
	for _, e := range h.Tensors {
		t, ok := vars[e.Name]
		if !ok {
			return nil, fmt.Errorf("%s: checkpoint tensor %q is not in the model", path, e.Name)
		}
		shape, err := t.Size()
		if err != nil {
			return nil, fmt.Errorf("libtorch: %w", err)
		}
		if !reflect.DeepEqual(shape, e.Shape) {
			return nil, fmt.Errorf("%s: tensor %s has shape %v in the checkpoint, %v in the model", path, e.Name, e.Shape, shape)
		}
	}
	err = Run(func(s *Scope) error {
		return NoGrad(func() error {
			for i, e := range h.Tensors {
				src, err := Tensor(s, values[i], e.Shape, m.Device)
				if err != nil {
					return err
				}
				dst := vars[e.Name]
				dst.Copy_(src)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h.Extra, nil
}

// AverageCheckpoints writes to out the element-wise mean of the tensors of
// the checkpoints at paths (of one configuration and the same tensors), with
// extra as its extra data: the average of the weights along a training's
// last epochs (Polyak & Juditsky, SIAM J. Control Optim. 1992; SWA, Izmailov
// et al., UAI 2018). The batch-norm running statistics are averaged like the
// weights (SWA recomputes them with a pass over the data instead).
func AverageCheckpoints(paths []string, out string, extra any) error {
	if len(paths) == 0 {
		return fmt.Errorf("average: no checkpoint")
	}
	var h0 CheckpointHeader
	var sum [][]float64
	for k, p := range paths {
		h, values, err := ReadCheckpoint(p)
		if err != nil {
			return err
		}
		if k == 0 {
			h0 = h
			sum = make([][]float64, len(values))
			for i, v := range values {
				sum[i] = make([]float64, len(v))
			}
		} else if !sameArchitecture(h.Config, h0.Config) || len(h.Tensors) != len(h0.Tensors) {
			return fmt.Errorf("average: %s is for %v, %s for %v", p, h.Config, paths[0], h0.Config)
		}
		for i, v := range values {
			if h.Tensors[i].Name != h0.Tensors[i].Name || !reflect.DeepEqual(h.Tensors[i].Shape, h0.Tensors[i].Shape) {
				return fmt.Errorf("average: %s has tensor %s %v where %s has %s %v", p, h.Tensors[i].Name, h.Tensors[i].Shape, paths[0], h0.Tensors[i].Name, h0.Tensors[i].Shape)
			}
			for j, x := range v {
				sum[i][j] += float64(x)
			}
		}
	}
	n := float64(len(paths))
	values := make([][]float32, len(sum))
	for i, s := range sum {
		values[i] = make([]float32, len(s))
		for j, x := range s {
			values[i][j] = float32(x / n)
		}
	}
	return writeCheckpoint(out, h0.Config, extra, h0.Tensors, values)
}

// Open builds a model from the configuration stored in the checkpoint at path and
// loads its weights onto device. It returns the extra data stored by Save.
func Open(path string, device gotch.Device) (*Model, json.RawMessage, error) {
	runtime.LockOSThread() // see New: grad mode is thread-local
	defer runtime.UnlockOSThread()
	h, err := ReadCheckpointHeader(path)
	if err != nil {
		return nil, nil, err
	}
	m, err := New(h.Config, device)
	if err != nil {
		return nil, nil, err
	}
	extra, err := m.Load(path)
	if err != nil {
		return nil, nil, err
	}
	return m, extra, nil
}
