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
