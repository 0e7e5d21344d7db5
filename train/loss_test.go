package train

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// bruteCRF is crfLoss's R(S) by loops over the pixels of x (N·3·H·W) and the
// class distributions S (N·K·H·W).
func bruteCRF(x, S []float64, N, K, H, W int) float64 {
	var sum float64
	var pairs int
	for _, o := range crfOffsets {
		dy, dx := int(o[0]), int(o[1])
		for n := 0; n < N; n++ {
			for y := 0; y < H; y++ {
				for px := 0; px < W; px++ {
					qy, qx := y+dy, px+dx
					if qy >= H || qx < 0 || qx >= W {
						continue
					}
					var d2, inner float64
					for c := 0; c < 3; c++ {
						d := x[((n*3+c)*H+y)*W+px] - x[((n*3+c)*H+qy)*W+qx]
						d2 += d * d
					}
					for k := 0; k < K; k++ {
						inner += S[((n*K+k)*H+y)*W+px] * S[((n*K+k)*H+qy)*W+qx]
					}
					sum += math.Exp(-d2/(2*crfSigma*crfSigma)) * (1 - inner)
					pairs++
				}
			}
		}
	}
	return sum / float64(pairs)
}

// crfOf is crfLoss of the logits z (shape zs) for the images x (shape xs).
func crfOf(t *testing.T, x []float32, xs []int64, z []float32, zs []int64, classes int) float64 {
	t.Helper()
	return scalarOf(t, func(s *unet.Scope) (*ts.Tensor, error) {
		xt, err := unet.Tensor(s, x, xs, gotch.CPU)
		if err != nil {
			return nil, err
		}
		zt, err := unet.Tensor(s, z, zs, gotch.CPU)
		if err != nil {
			return nil, err
		}
		ws, err := crfWeights(s, xt)
		if err != nil {
			return nil, err
		}
		return crfLoss(s, zt, ws, classes)
	})
}

// TestCRFLossBruteForce checks crfLoss against bruteCRF on random images
// (colours from a few levels, so that some pairs weigh about 1 and others
// about 0) and random logits, binary and with three classes.
func TestCRFLossBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	const N, H, W = 2, 7, 9
	x := make([]float32, N*3*H*W)
	xf := make([]float64, len(x))
	for i := range x {
		x[i] = float32(r.IntN(3)) * 0.05
		xf[i] = float64(x[i])
	}
	for _, classes := range []int{1, 3} {
		z := make([]float32, N*classes*H*W)
		for i := range z {
			z[i] = float32(r.NormFloat64() * 2)
		}
		K := max(classes, 2)
		S := make([]float64, N*K*H*W)
		for n := 0; n < N; n++ {
			for i := 0; i < H*W; i++ {
				if classes == 1 {
					p := 1 / (1 + math.Exp(-float64(z[n*H*W+i])))
					S[(n*2)*H*W+i], S[(n*2+1)*H*W+i] = p, 1-p
					continue
				}
				var m, sum float64 = math.Inf(-1), 0
				for k := 0; k < K; k++ {
					m = max(m, float64(z[(n*K+k)*H*W+i]))
				}
				for k := 0; k < K; k++ {
					sum += math.Exp(float64(z[(n*K+k)*H*W+i]) - m)
				}
				for k := 0; k < K; k++ {
					S[(n*K+k)*H*W+i] = math.Exp(float64(z[(n*K+k)*H*W+i])-m) / sum
				}
			}
		}
		want := bruteCRF(xf, S, N, K, H, W)
		got := crfOf(t, x, []int64{N, 3, H, W}, z, []int64{N, int64(classes), H, W}, classes)
		if want <= 0.01 || math.Abs(got-want) > 1e-5 {
			t.Errorf("classes %d: crfLoss %.7f, brute force %.7f", classes, got, want)
		}
	}
}

// TestCRFLossSmallFrame checks by hand the pairs of a frame smaller than
// the longest offsets: on a 1×3 frame of grey levels (0, 0, σ) with every
// logit 0 (S = (½, ½), so 1 − ⟨S_p, S_q⟩ = ½) only the horizontal pairs at
// distances 1 and 2 exist: (0,1) weighs 1, (1,2) and (0,2) exp(−3σ²/2σ²),
// so R = ½ (1 + 2 e^{−3/2}) / 3. A frame of one pixel has no pair: R = 0.
func TestCRFLossSmallFrame(t *testing.T) {
	for _, tc := range []struct {
		W    int64
		want float64
	}{{3, 0.5 * (1 + 2*math.Exp(-1.5)) / 3}, {1, 0}} {
		grey := []float32{0, 0, crfSigma}[:tc.W]
		x := append(append(append([]float32{}, grey...), grey...), grey...) // three equal channels
		got := crfOf(t, x, []int64{1, 3, 1, tc.W}, make([]float32, tc.W), []int64{1, 1, 1, tc.W}, 1)
		if math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("width %d: R = %.7f, want %.7f", tc.W, got, tc.want)
		}
	}
}

// TestCRFWeightAddsTheTerm trains one step with and without the CRF loss
// from the same seed: the first step's loss differs by λ·R, where R is the
// relaxed Potts loss of the untrained network, in (0, ½] (each pair costs
// w_pq (1 − ⟨S_p, S_q⟩) ≤ 1 − ½ for two-class distributions near (½, ½)),
// and the summary records λ.
func TestCRFWeightAddsTheTerm(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 3, testOptions())
	first := func(crf float64) (float64, *Summary) {
		cfg := tinyConfig(1)
		cfg.Variant, cfg.CRFWeight = VariantUniform, crf
		var loss float64 = -1
		cfg.OnStep = func(epoch, step int, l float64) {
			if loss < 0 {
				loss = l
			}
		}
		sum := mustRun(t, cfg, []string{set}, filepath.Join(t.TempDir(), "model"))
		return loss, sum
	}
	plain, _ := first(0)
	const lambda = 3
	withCRF, sum := first(lambda)
	if d := (withCRF - plain) / lambda; !(d > 0.01 && d <= 0.5) {
		t.Errorf("first loss %v with λ = %d, %v without: R = %v, want in (0.01, 0.5]", withCRF, lambda, plain, d)
	}
	if sum.Options.CRFWeight != lambda {
		t.Errorf("summary records CRF weight %v, want %d", sum.Options.CRFWeight, lambda)
	}
}
