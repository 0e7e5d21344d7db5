package train

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"reflect"
	"runtime"
	"sort"

	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch/ts"
)

// adam is Adam (Kingma & Ba, ICLR 2015) written with libtorch tensor ops, so
// that its moments can be saved with every checkpoint and a resumed training
// continues bit for bit (gotch's optimiser wraps torch::optim::Adam, whose
// state cannot be read or written from Go). With gradient g_t of parameter θ:
//
//	m_t = β₁ m_{t−1} + (1−β₁) g_t,       v_t = β₂ v_{t−1} + (1−β₂) g_t²,
//	θ_t = θ_{t−1} − lr · (m_t / (1−β₁ᵗ)) / (√v_t / √(1−β₂ᵗ) + ε),
//
// the update of torch.optim.Adam (no weight decay, no amsgrad).
type adam struct {
	LR, Beta1, Beta2, Eps float64
	T                     int64 // steps taken

	names  []string
	params []*ts.Tensor
	m, v   []*ts.Tensor
	scope  *unet.Scope // owns m and v
	model  *unet.Model
}

func newAdam(model *unet.Model, lr float64) (*adam, error) {
	a := &adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, model: model, scope: unet.NewScope()}
	vars := model.VS.Variables()
	for n := range vars {
		a.names = append(a.names, n)
	}
	sort.Strings(a.names)
	kept := a.names[:0]
	for _, n := range a.names {
		t := vars[n]
		rg, err := t.RequiresGrad()
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("libtorch: %w", err)
		}
		if !rg {
			continue // batch-norm running statistics
		}
		shape, err := t.Size()
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("libtorch: %w", err)
		}
		n64 := int64(1)
		for _, d := range shape {
			n64 *= d
		}
		var mv [2]*ts.Tensor
		for k := range mv {
			mv[k], err = unet.Tensor(a.scope, make([]float32, n64), shape, model.Device)
			if err != nil {
				a.Close()
				return nil, err
			}
		}
		kept = append(kept, n)
		a.params = append(a.params, &t)
		a.m = append(a.m, mv[0])
		a.v = append(a.v, mv[1])
	}
	a.names = kept
	return a, nil
}

// Close frees the moments.
func (a *adam) Close() { a.scope.Close() }

func check(err error) {
	if err != nil {
		panic(&unet.TorchError{Err: err})
	}
}

// The moments and the parameters are updated in place (Lerp_, MulScalar_,
// Addcdiv_, …) with the same kernels as the out-of-place ops, so the results
// are bit for bit those of the earlier out-of-place version (which computed new
// tensors and copied them back). gotch's generated in-place wrappers used to
// leak the receiver's old handle, and with it the tensor's storage;
// scripts/setup.sh patches them to keep the receiver's handle (so the struct
// copies of VarStore.Variables in params stay valid) and free the alias
// libtorch returns (unet's TestInPlaceKeepsHandle checks the patch).

// zeroGrad clears the gradients of all parameters (before a backward pass) by
// copying a broadcast zero into them.
func (a *adam) zeroGrad() error {
	defer runtime.KeepAlive(a)
	return unet.Run(func(s *unet.Scope) error {
		zero, err := unet.Tensor(s, []float32{0}, []int64{1}, a.model.Device)
		if err != nil {
			return err
		}
		for _, p := range a.params {
			g := s.T(p.Grad(false))
			if ok, err := g.Defined(); err != nil || !ok {
				continue
			}
			g.Copy_(zero)
		}
		return nil
	})
}

// step applies one Adam update from the gradients accumulated by backward.
func (a *adam) step() error {
	defer runtime.KeepAlive(a)
	a.T++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.T))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.T))
	return unet.Run(func(s *unet.Scope) error {
		return unet.NoGrad(func() error {
			c1, c2 := s.Float(1-a.Beta1), s.Float(1-a.Beta2)
			eps, rb := s.Float(a.Eps), s.Float(1/math.Sqrt(bc2))
			lr := s.Float(-a.LR / bc1)
			for i, p := range a.params {
				g := s.T(p.Grad(false))
				if ok, err := g.Defined(); err != nil || !ok {
					continue // parameter not reached by this loss
				}
				// m_t = lerp(m, g, 1−β₁) = β₁m + (1−β₁)g; likewise v_t with g².
				m, v := a.m[i], a.v[i]
				check(m.Lerp_(g, c1))
				g2 := s.T(g.Mul(g, false))
				check(v.Lerp_(g2, c2))
				s.Free(g2)
				// θ ← θ + (−lr/(1−β₁ᵗ))·m / (√v/√(1−β₂ᵗ) + ε)
				den := s.T(v.Sqrt(false))
				check(den.MulScalar_(rb))
				check(den.AddScalar_(eps))
				upd := s.T(m.MulScalar(lr, false))
				check(p.Addcdiv_(upd, den))
				s.Free(upd)
				s.Free(den)
				s.Free(g)
			}
			return nil
		})
	})
}

// Optimiser state file (written atomically beside each checkpoint):
//
//	line 1  "densify-adam-state v1\n"
//	uint64  little-endian header length L
//	L bytes header JSON (adamHeader)
//	data    for each tensor in order: m then v, float32 little-endian
const adamMagic = "densify-adam-state v1\n"

type adamHeader struct {
	LR      float64         `json:"lr"`
	Beta1   float64         `json:"beta1"`
	Beta2   float64         `json:"beta2"`
	Eps     float64         `json:"eps"`
	T       int64           `json:"t"`
	Extra   json.RawMessage `json:"extra,omitempty"`
	Tensors []adamEntry     `json:"tensors"`
}

type adamEntry struct {
	Name  string  `json:"name"`
	Shape []int64 `json:"shape"`
	CRCM  uint32  `json:"crc32_m"`
	CRCV  uint32  `json:"crc32_v"`
}

// save writes the moments and step count with extra (the trainer's position).
func (a *adam) save(path string, extra any) error {
	h := adamHeader{LR: a.LR, Beta1: a.Beta1, Beta2: a.Beta2, Eps: a.Eps, T: a.T}
	if extra != nil {
		b, err := json.Marshal(extra)
		if err != nil {
			return err
		}
		h.Extra = b
	}
	var data [][]byte
	for i, n := range a.names {
		shape, err := a.m[i].Size()
		if err != nil {
			return fmt.Errorf("libtorch: %w", err)
		}
		mv, err := unet.Float32s(a.m[i])
		if err != nil {
			return err
		}
		vv, err := unet.Float32s(a.v[i])
		if err != nil {
			return err
		}
		mb, vb := unet.Float32Bytes(mv), unet.Float32Bytes(vv)
		data = append(data, mb, vb)
		h.Tensors = append(h.Tensors, adamEntry{Name: n, Shape: shape, CRCM: crc32.ChecksumIEEE(mb), CRCV: crc32.ChecksumIEEE(vb)})
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return unet.WriteTensorFile(path, adamMagic, hb, data)
}

// load restores moments and step count saved by save (same parameters, shapes)
// and returns the saved extra data.
func (a *adam) load(path string) (json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(adamMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != adamMagic {
		return nil, fmt.Errorf("%s: not a densify optimiser state", path)
	}
	var n uint64
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n == 0 || n > 64<<20 {
		return nil, fmt.Errorf("%s: truncated or implausible optimiser state header", path)
	}
	hb := make([]byte, n)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, fmt.Errorf("%s: truncated optimiser state header", path)
	}
	var h adamHeader
	dec := json.NewDecoder(bytes.NewReader(hb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%s: optimiser state header: %v", path, err)
	}
	if len(h.Tensors) != len(a.names) {
		return nil, fmt.Errorf("%s: optimiser state has %d tensors, the model %d trainable ones", path, len(h.Tensors), len(a.names))
	}
	values := make([][2][]float32, len(a.names))
	for i, e := range h.Tensors {
		shape, err := a.m[i].Size()
		if err != nil {
			return nil, fmt.Errorf("libtorch: %w", err)
		}
		if e.Name != a.names[i] || !reflect.DeepEqual(shape, e.Shape) {
			return nil, fmt.Errorf("%s: optimiser tensor %d is %s %v, the model has %s %v", path, i, e.Name, e.Shape, a.names[i], shape)
		}
		numel := int64(1)
		for _, d := range shape {
			numel *= d
		}
		for k, crc := range []uint32{e.CRCM, e.CRCV} {
			b := make([]byte, 4*numel)
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, fmt.Errorf("%s: truncated optimiser state (in %s)", path, e.Name)
			}
			if crc32.ChecksumIEEE(b) != crc {
				return nil, fmt.Errorf("%s: optimiser tensor %s fails its CRC32 check (corrupted file)", path, e.Name)
			}
			values[i][k] = unet.Float32sFromBytes(b)
		}
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: unexpected data after the last tensor", path)
	}
	err = unet.Run(func(s *unet.Scope) error {
		return unet.NoGrad(func() error {
			for i := range a.names {
				for k, dst := range []*ts.Tensor{a.m[i], a.v[i]} {
					shape, _ := dst.Size()
					src, err := unet.Tensor(s, values[i][k], shape, a.model.Device)
					if err != nil {
						return err
					}
					dst.Copy_(src)
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a.LR, a.Beta1, a.Beta2, a.Eps, a.T = h.LR, h.Beta1, h.Beta2, h.Eps, h.T
	return h.Extra, nil
}
