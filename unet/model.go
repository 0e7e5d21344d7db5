package unet

import (
	"fmt"
	"math"
	"runtime"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/nn"
	"github.com/sugarme/gotch/ts"
)

// Model is the U-Net of Kardoost, Ho, Ochs, Keuper, "Self-supervised sparse to dense
// motion segmentation", ACCV 2020 (the architecture of Ronneberger et al., MICCAI 2015,
// with bilinear upsampling):
//
//	block(c_in, c_mid, c_out) = ReLU∘BN∘Conv3×3(c_mid→c_out) ∘ ReLU∘BN∘Conv3×3(c_in→c_mid)
//	encoder: e_0 = block(x); e_l = block(maxpool2×2(e_{l-1})), l = 1..D   (e_D = bottleneck)
//	decoder: d_D = e_D; d_l = block(cat(e_l, pad(up2(d_{l+1})))), l = D-1..0
//	output:  logits = Conv1×1(d_0)  (bias), Classes channels
//
// With width w and depth D: e_l has w·2^l channels for l < D, e_D has w·2^(D-1); d_l
// has w·2^(l-1) channels (w for l = 0) and its block's middle width is half its input
// width. up2 is bilinear ×2 with aligned corners; pad zero-pads on the right/bottom
// halves (left/top first) up to the skip's size, which matters for odd sizes because
// max pooling floors (95 → 47 → 94, padded to 95). Convolutions before batch norm have
// no bias. All tensors are NCHW float32.
type Model struct {
	Config Config
	// VS holds every parameter and batch-norm buffer; build the optimiser from it,
	// e.g. nn.DefaultAdamConfig().Build(m.VS, lr).
	VS     *nn.VarStore
	Device gotch.Device

	enc  []*block // D+1 blocks, the last is the bottleneck
	dec  []*block // dec[l] produces d_l
	outW *ts.Tensor
	outB *ts.Tensor
}

type block struct {
	w1, w2 *ts.Tensor
	bn1    *bnorm
	bn2    *bnorm
}

type bnorm struct{ w, b, mean, vari *ts.Tensor }

const (
	bnMomentum = 0.1
	bnEps      = 1e-5
)

// New builds a freshly initialised model on device (see ParseDevice). Initialisation
// follows PyTorch's defaults (Kaiming-uniform convolutions, BN weight 1, bias 0) and
// draws from libtorch's generator: call ManualSeed first for reproducible weights.
//
// The goroutine is pinned to its OS thread while the model is built: gotch's
// parameter initialisers run inside ts.NoGrad, which switches libtorch's
// thread-local grad mode off and back on; if the goroutine migrated in
// between, the first OS thread would be left with gradients disabled and a
// later training step scheduled there would fail with "element 0 of tensors
// does not require grad".
func New(cfg Config, device gotch.Device) (m *Model, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer func() {
		if r := recover(); r != nil { // gotch's nn constructors panic on failure
			err = fmt.Errorf("libtorch: building %s: %v", cfg.Name, r)
		}
	}()
	vs := nn.NewVarStore(device)
	root := vs.Root()
	m = &Model{Config: cfg, VS: vs, Device: device}
	w, D := cfg.BaseWidth, cfg.Depth
	ch := func(l int) int { // channels of e_l
		if l >= D {
			l = D - 1
		}
		return w << l
	}
	in := cfg.InputChannels()
	for l := 0; l <= D; l++ {
		out := ch(l)
		m.enc = append(m.enc, newBlock(root.Sub(fmt.Sprintf("enc%d", l)), in, out, out))
		in = out
	}
	m.dec = make([]*block, D)
	up := ch(D) // channels of d_{l+1} arriving from below
	for l := D - 1; l >= 0; l-- {
		cin := ch(l) + up
		out := w
		if l > 0 {
			out = w << (l - 1)
		}
		m.dec[l] = newBlock(root.Sub(fmt.Sprintf("dec%d", l)), cin, cin/2, out)
		up = out
	}
	oc := nn.DefaultConv2DConfig()
	conv := nn.NewConv2D(root.Sub("out"), int64(w), int64(cfg.Classes), 1, oc)
	m.outW, m.outB = conv.Ws, conv.Bs
	return m, nil
}

func newBlock(p *nn.Path, in, mid, out int) *block {
	cc := nn.DefaultConv2DConfig()
	cc.Padding = []int64{1, 1}
	cc.Bias = false
	c1 := nn.NewConv2D(p.Sub("conv1"), int64(in), int64(mid), 3, cc)
	c2 := nn.NewConv2D(p.Sub("conv2"), int64(mid), int64(out), 3, cc)
	return &block{w1: c1.Ws, w2: c2.Ws, bn1: newBN(p.Sub("bn1"), mid), bn2: newBN(p.Sub("bn2"), out)}
}

func newBN(p *nn.Path, n int) *bnorm {
	bc := nn.DefaultBatchNormConfig()
	bc.WsInit = nn.NewConstInit(1)
	bc.BsInit = nn.NewConstInit(0)
	bn := nn.BatchNorm2D(p, int64(n), bc)
	return &bnorm{w: bn.Ws, b: bn.Bs, mean: bn.RunningMean, vari: bn.RunningVar}
}

var (
	unit  = []int64{1, 1}
	zero2 = []int64{0, 0}
	pool2 = []int64{2, 2}
)

// forward runs the block on x; with free set it frees x once the first
// convolution has read it (an intermediate of Forward, not a skip or the
// caller's input). Every intermediate is freed as soon as the next op has read
// it and ReLU works in place on the batch-norm output, as nn.ReLU(inplace=True)
// after nn.BatchNorm2d in PyTorch: autograd keeps what backward needs (the
// convolutions' and batch norms' inputs, the ReLU's output) through its own
// references, so a step holds the same tensors as PyTorch's.
func (b *block) forward(s *Scope, x *ts.Tensor, train, free bool) *ts.Tensor {
	y := s.T(ts.Conv2d(x, b.w1, noBias, unit, unit, unit, 1))
	if free {
		s.Free(x)
	}
	z := s.T(ts.BatchNorm(y, b.bn1.w, b.bn1.b, b.bn1.mean, b.bn1.vari, train, bnMomentum, bnEps, true))
	s.Free(y)
	must(z.Relu_())
	y = s.T(ts.Conv2d(z, b.w2, noBias, unit, unit, unit, 1))
	s.Free(z)
	z = s.T(ts.BatchNorm(y, b.bn2.w, b.bn2.b, b.bn2.mean, b.bn2.vari, train, bnMomentum, bnEps, true))
	s.Free(y)
	must(z.Relu_())
	return z
}

// must panics with a *TorchError when err is not nil (see Scope.T).
func must(err error) {
	if err != nil {
		panic(&TorchError{Err: err})
	}
}

// noBias is an undefined tensor, gotch's way of passing "no bias" (never freed).
var noBias = ts.NewTensor()

// Undefined returns the shared undefined tensor that gotch ops take for an absent
// optional argument (bias, weight, pos_weight). Never Keep or Drop it.
func Undefined() *ts.Tensor { return noBias }

// Forward computes the logits [N, Classes, H, W] of rgb, a float32 tensor
// [N, 3, H, W] with values in [0, 1] on the model's device; the Sobel channel is
// added here when Config.Edges is set. With Config.Edges the input may instead be
// [N, 4, H, W]: RGB and, as the fourth channel, the edge map Sobel (or
// SobelPlanes) computed beforehand, which a trainer that sees every frame many
// times computes once per frame. train selects batch statistics (and updates
// the running ones) versus the running statistics for inference; wrap inference in
// NoGrad. Every intermediate, and the result, belongs to s.
func (m *Model) Forward(s *Scope, rgb *ts.Tensor, train bool) (logits *ts.Tensor, err error) {
	defer runtime.KeepAlive(rgb)
	defer runtime.KeepAlive(m)
	defer Catch(&err)
	shape, err := rgb.Size()
	if err != nil {
		return nil, fmt.Errorf("libtorch: %w", err)
	}
	withEdges := len(shape) == 4 && shape[1] == 4 && m.Config.Edges
	if len(shape) != 4 || (shape[1] != 3 && !withEdges) {
		if m.Config.Edges {
			return nil, fmt.Errorf("unet: input must be [N, 3, H, W] RGB or [N, 4, H, W] RGB + Sobel edges, got shape %v", shape)
		}
		return nil, fmt.Errorf("unet: input must be [N, 3, H, W] RGB, got shape %v", shape)
	}
	if min := int64(m.Config.MinSize()); shape[2] < min || shape[3] < min {
		return nil, fmt.Errorf("unet: input %d×%d (W×H) is smaller than %d×%d, the minimum for depth %d", shape[3], shape[2], min, min, m.Config.Depth)
	}
	if dt := rgb.DType(); dt != gotch.Float {
		return nil, fmt.Errorf("unet: input must be float32, got %v", dt)
	}
	x, own := rgb, false // own: x is Forward's intermediate, freed once read
	if m.Config.Edges && !withEdges {
		e, err := Sobel(s, rgb)
		if err != nil {
			return nil, err
		}
		x, own = s.T(ts.Cat([]*ts.Tensor{rgb, e}, 1)), true
		s.Free(e)
	}
	D := m.Config.Depth
	skips := make([]*ts.Tensor, D)
	for l := 0; l < D; l++ {
		x = m.enc[l].forward(s, x, train, own)
		skips[l] = x
		x, own = s.T(x.MaxPool2d(pool2, pool2, zero2, unit, false, false)), true
	}
	x = m.enc[D].forward(s, x, train, own)
	for l := D - 1; l >= 0; l-- {
		sk := skips[l].MustSize()
		xs := x.MustSize()
		up := s.T(x.UpsampleBilinear2d([]int64{2 * xs[2], 2 * xs[3]}, true, nil, nil, false))
		s.Free(x)
		dy, dx := sk[2]-2*xs[2], sk[3]-2*xs[3]
		if dy != 0 || dx != 0 {
			p := s.T(up.ConstantPadNd([]int64{dx / 2, dx - dx/2, dy / 2, dy - dy/2}, false))
			s.Free(up)
			up = p
		}
		x = s.T(ts.Cat([]*ts.Tensor{skips[l], up}, 1))
		s.Free(up)
		s.Free(skips[l])
		x = m.dec[l].forward(s, x, train, true)
	}
	logits = s.T(ts.Conv2d(x, m.outW, m.outB, unit, zero2, unit, 1))
	s.Free(x)
	return logits, nil
}

// NumParams is the number of trainable scalars.
func (m *Model) NumParams() int64 {
	var n int64
	for _, t := range m.VS.TrainableVariables() {
		n += int64(t.Numel())
	}
	return n
}

// Sobel returns the Sobel gradient magnitude of the luma of rgb ([N, 3, H, W] in
// [0, 1]) as [N, 1, H, W] in [0, 1]:
//
//	Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601),
//	G_x = [-1 0 1; -2 0 2; -1 0 1] ⋆ Y,  G_y = G_xᵀ ⋆ Y  (borders replicated),
//	E = √(G_x² + G_y²) / (4√2),
//
// where 4√2 is the largest possible magnitude for Y ∈ [0, 1], so E ∈ [0, 1]. A vertical
// step from 0 to 1 gives E = 4/(4√2) ≈ 0.7071 on the two columns beside the step.
// Done in libtorch so that training and prediction share one implementation.
func Sobel(s *Scope, rgb *ts.Tensor) (edges *ts.Tensor, err error) {
	defer Catch(&err)
	dev, err := rgb.Device()
	if err != nil {
		return nil, fmt.Errorf("libtorch: %w", err)
	}
	luma, err := Tensor(s, []float32{0.299, 0.587, 0.114}, []int64{1, 3, 1, 1}, dev)
	if err != nil {
		return nil, err
	}
	k, err := Tensor(s, []float32{
		-1, 0, 1, -2, 0, 2, -1, 0, 1, // G_x
		-1, -2, -1, 0, 0, 0, 1, 2, 1, // G_y
	}, []int64{2, 1, 3, 3}, dev)
	if err != nil {
		return nil, err
	}
	y := s.T(ts.Conv2d(rgb, luma, noBias, unit, zero2, unit, 1))
	s.Free(luma)
	y = s.replace(y, func() (*ts.Tensor, error) { return y.ReplicationPad2d([]int64{1, 1, 1, 1}, false) })
	g := s.T(ts.Conv2d(y, k, noBias, unit, zero2, unit, 1))
	s.Free(y)
	s.Free(k)
	g = s.replace(g, func() (*ts.Tensor, error) { return g.Square(false) })
	g = s.replace(g, func() (*ts.Tensor, error) { return g.SumDimIntlist([]int64{1}, true, gotch.Float, false) })
	g = s.replace(g, func() (*ts.Tensor, error) { return g.Sqrt(false) })
	return s.replace(g, func() (*ts.Tensor, error) { return g.MulScalar(s.Float(1/(4*math.Sqrt2)), false) }), nil
}

// SobelPlanes is Sobel of one planar RGB image (3·w·h values in [0, 1]: the R,
// G and B planes) on the CPU, without gradients: the edge map E as w·h values,
// row-major. Training computes it once per frame (see Forward).
func SobelPlanes(rgb []float32, w, h int) ([]float32, error) {
	if len(rgb) != 3*w*h {
		return nil, fmt.Errorf("unet: %d RGB values for a %d×%d image, want %d", len(rgb), w, h, 3*w*h)
	}
	var out []float32
	err := NoGrad(func() error {
		return Run(func(s *Scope) error {
			x, err := Tensor(s, rgb, []int64{1, 3, int64(h), int64(w)}, gotch.CPU)
			if err != nil {
				return err
			}
			e, err := Sobel(s, x)
			if err != nil {
				return err
			}
			out, err = Float32s(e)
			return err
		})
	})
	return out, err
}
