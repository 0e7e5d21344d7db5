package train

import (
	"fmt"

	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// weightedLoss is the loss of ACCV'20 restricted to labelled pixels, as a
// weighted mean (UAI'21 Sec. 4.3: oversampling a hard example k times equals
// weight k):
//
//	binary (one logit z, label y ∈ {0,1}):
//	    ℓ_i = −[y_i log σ(z_i) + (1−y_i) log(1−σ(z_i))]   (BCE with logits)
//	multi-label (K logits z_{i,·}, label c_i):
//	    ℓ_i = −log softmax(z_i)_{c_i}                       (cross entropy)
//	L = Σ_i w_i ℓ_i / Σ_i w_i,
//
// where w_i = 0 for unlabelled pixels, so they contribute nothing. logits is
// [N, C, H, W]; target holds class indices and weight the w_i, both as
// [N, 1, H, W] float32 tensors; sumW = Σ_i w_i > 0 (computed in Go in float64).
func weightedLoss(s *unet.Scope, logits, target, weight *ts.Tensor, sumW float64, classes int) (loss *ts.Tensor, err error) {
	defer unet.Catch(&err)
	if !(sumW > 0) {
		return nil, fmt.Errorf("train: batch without labelled pixel (Σw = %v)", sumW)
	}
	var sum *ts.Tensor
	if classes == 1 {
		sum = s.T(logits.BinaryCrossEntropyWithLogits(target, weight, undefined, ts.ReductionSum, false))
	} else {
		logp := s.T(logits.LogSoftmax(1, gotch.Float, false))
		idx := s.T(target.Totype(gotch.Int64, false))
		picked := s.T(logp.Gather(1, idx, false, false))
		wp := s.T(picked.Mul(weight, false))
		sum = s.T(wp.Sum(gotch.Float, false))
		sum = s.T(sum.MulScalar(s.Float(-1), false))
	}
	return s.T(sum.MulScalar(s.Float(1/sumW), false)), nil
}

// undefined is libtorch's "no tensor" (e.g. no pos_weight); package-level so that
// it is never finalized while a cgo call reads it.
var undefined = ts.NewTensor()

// crfSigma is σ of crfLoss's pairwise weights, on RGB in [0, 1]: 15/255,
// the colour bandwidth of Tang et al. (ECCV 2018, Sec. 4).
const crfSigma = 15.0 / 255

// crfOffsets are the pixel pairs (p, p + (dy, dx)) of crfLoss: the four
// directions of the 8-neighbourhood at distances 1, 2 and 4, so that the
// loss also links pixels across a thin structure or a short gap.
var crfOffsets = [][2]int64{
	{0, 1}, {1, 0}, {1, 1}, {1, -1},
	{0, 2}, {2, 0}, {2, 2}, {2, -2},
	{0, 4}, {4, 0}, {4, 4}, {4, -4},
}

// crfWeights returns, for each of crfOffsets, the weights
// w_pq = exp(−‖I_p − I_q‖² / 2σ²) of the pairs (p, q = p + offset) that lie
// in the frame, as [N, 1, H−|dy|, W−|dx|] tensors, from the batch's images
// x ([N, C, H, W], RGB in [0, 1] in the first three channels).
func crfWeights(s *unet.Scope, x *ts.Tensor) (ws []*ts.Tensor, err error) {
	defer unet.Catch(&err)
	rgb := s.T(x.Narrow(1, 0, 3, false))
	for _, o := range crfOffsets {
		p, q := pairViews(s, rgb, o)
		if p == nil {
			ws = append(ws, nil)
			continue
		}
		d := s.T(p.Sub(q, false))
		d2 := s.T(s.T(d.Square(false)).SumDimIntlist([]int64{1}, true, gotch.Float, false))
		ws = append(ws, s.T(s.T(d2.MulScalar(s.Float(-1/(2*crfSigma*crfSigma)), false)).Exp(false)))
	}
	return ws, nil
}

// pairViews are the views of t ([N, C, H, W]) at p and at q = p + o over the
// pixels p for which both lie in the frame; nil when there are none.
func pairViews(s *unet.Scope, t *ts.Tensor, o [2]int64) (p, q *ts.Tensor) {
	sz := t.MustSize()
	H, W := sz[2], sz[3]
	dy, dx := o[0], o[1]
	adx := max(dx, -dx)
	if dy >= H || adx >= W {
		return nil, nil
	}
	p = s.T(t.Narrow(2, 0, H-dy, false))
	q = s.T(t.Narrow(2, dy, H-dy, false))
	if dx >= 0 {
		return s.T(p.Narrow(3, 0, W-adx, false)), s.T(q.Narrow(3, adx, W-adx, false))
	}
	return s.T(p.Narrow(3, adx, W-adx, false)), s.T(q.Narrow(3, 0, W-adx, false))
}

// crfLoss is the relaxed Potts ("CRF") loss of Tang, Djelouah, Perazzi,
// Boykov & Schroers ("On regularized losses for weakly-supervised CNN
// segmentation", ECCV 2018, Eq. 3, with a sparse grid kernel in place of
// their dense Gaussian one) over every pixel, labelled or not:
//
//	R(S) = Σ_{(p,q)} w_pq (1 − ⟨S_p, S_q⟩) / |pairs|,
//
// where S_p is the network's class distribution at p (binary: (σ(z_p),
// 1 − σ(z_p)); multi-label: softmax(z_p)), w_pq are crfWeights' and the
// pairs are crfOffsets'. It costs a change of label between pixels of
// similar colour, so that where the sparse labels leave the network free
// its output follows the image's colour edges.
func crfLoss(s *unet.Scope, logits *ts.Tensor, ws []*ts.Tensor, classes int) (loss *ts.Tensor, err error) {
	defer unet.Catch(&err)
	var S *ts.Tensor
	if classes == 1 {
		sp := s.T(logits.Sigmoid(false))
		S = s.T(ts.Cat([]*ts.Tensor{sp, s.T(sp.RsubScalar(s.Float(1), false))}, 1))
	} else {
		S = s.T(logits.Softmax(1, gotch.Float, false))
	}
	var total *ts.Tensor
	var pairs int64
	for k, o := range crfOffsets {
		if ws[k] == nil {
			continue
		}
		p, q := pairViews(s, S, o)
		inner := s.T(s.T(p.Mul(q, false)).SumDimIntlist([]int64{1}, true, gotch.Float, false))
		term := s.T(s.T(inner.RsubScalar(s.Float(1), false)).Mul(ws[k], false))
		sum := s.T(term.Sum(gotch.Float, false))
		if total == nil {
			total = sum
		} else {
			total = s.T(total.Add(sum, false))
		}
		pairs += int64(ws[k].Numel())
	}
	if pairs == 0 {
		return s.T(s.T(logits.Sum(gotch.Float, false)).MulScalar(s.Float(0), false)), nil
	}
	return s.T(total.MulScalar(s.Float(1/float64(pairs)), false)), nil
}
