// Package logistic fits an L2-regularised logistic regression by Newton's
// method (iteratively reweighted least squares) with step halving, for the
// cost model of the motion graph and the boundary model of image
// decomposition:
//
//	max_θ Σ_i [y_i log σ(x_i·θ) + (1 − y_i) log σ(−x_i·θ)] − (λ/2) Σ_{j≥1} θ_j²,
//
// with y_i ∈ [0, 1] (hard or soft labels) and the intercept θ_0 (column 0
// of X, all ones) not penalised. Each step forms the Hessian
// H = Xᵀ W X + λ I' (W = diag p(1−p)) by gonum's rank-k updates, solves
// H Δ = g by Cholesky (gonum) and halves Δ until the objective does not
// decrease.
package logistic

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// hessianChunk is the number of rows of one rank-k update of the Hessian.
const hessianChunk = 4096

// Fit returns θ (length d) for the row-major n×d design X (column 0 = 1)
// and labels y, starting from the base rate; at most maxIter Newton steps,
// stopping when no coefficient moves by more than 1e-9.
func Fit(X, y []float64, d int, lambda float64, maxIter int) ([]float64, error) {
	n := len(y)
	if n == 0 || len(X) != n*d {
		return nil, fmt.Errorf("logistic: %d labels for a design of %d values and %d columns", n, len(X), d)
	}
	theta := make([]float64, d)
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	if !(mean > 0 && mean < 1) {
		return nil, fmt.Errorf("logistic: labels are all %v", mean)
	}
	theta[0] = math.Log(mean / (1 - mean))
	obj := func(th []float64) float64 {
		s := 0.0
		for i := range n {
			eta := dot(X[i*d:(i+1)*d], th)
			// log σ(η) = −log(1+e^−η), log(1−σ(η)) = −log(1+e^η)
			switch y[i] {
			case 1:
				s -= softplus(-eta)
			case 0:
				s -= softplus(eta)
			default:
				s -= y[i]*softplus(-eta) + (1-y[i])*softplus(eta)
			}
		}
		for j := 1; j < d; j++ {
			s -= 0.5 * lambda * th[j] * th[j]
		}
		return s
	}
	cur := obj(theta)
	H := mat.NewSymDense(d, nil)
	g := mat.NewVecDense(d, nil)
	hd := make([]float64, d*d)
	gd := make([]float64, d)
	chunk := make([]float64, 0, min(n, hessianChunk)*d)
	for range maxIter {
		clear(hd)
		clear(gd)
		hs := blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: hd}
		// H = Σ_i w_i x_i x_iᵀ = AᵀA with rows a_i = √w_i x_i, accumulated
		// by a rank-k update per chunk of rows (gonum's Dsyrk: 2.4× the
		// speed of the scalar loop at 326 columns, in the same order on
		// every machine).
		for i0 := 0; i0 < n; i0 += hessianChunk {
			m := min(hessianChunk, n-i0)
			chunk = chunk[:m*d]
			for r := range m {
				row := X[(i0+r)*d : (i0+r+1)*d]
				p := sigmoid(dot(row, theta))
				w := math.Sqrt(math.Max(p*(1-p), 1e-12))
				res := y[i0+r] - p
				a := chunk[r*d : (r+1)*d]
				for k, v := range row {
					gd[k] += v * res
					a[k] = w * v
				}
			}
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: m, Cols: d, Stride: d, Data: chunk}, 1, hs)
		}
		for a := range d {
			if a > 0 {
				gd[a] -= lambda * theta[a]
				hd[a*d+a] += lambda
			}
			g.SetVec(a, gd[a])
			for b := a; b < d; b++ {
				H.SetSym(a, b, hd[a*d+b]+1e-10)
			}
		}
		var ch mat.Cholesky
		if ok := ch.Factorize(H); !ok {
			return nil, fmt.Errorf("logistic: Hessian not positive definite (collinear features?)")
		}
		var step mat.VecDense
		if err := ch.SolveVecTo(&step, g); err != nil {
			return nil, fmt.Errorf("logistic: %v", err)
		}
		next := make([]float64, d)
		alpha := 1.0
		var nobj float64
		for range 30 {
			for a := range d {
				next[a] = theta[a] + alpha*step.AtVec(a)
			}
			nobj = obj(next)
			if nobj >= cur-1e-12*math.Abs(cur) {
				break
			}
			alpha /= 2
		}
		maxStep := 0.0
		for a := range d {
			maxStep = math.Max(maxStep, math.Abs(next[a]-theta[a]))
		}
		copy(theta, next)
		cur = nobj
		if maxStep < 1e-9 {
			break
		}
	}
	return theta, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// softplus(x) = log(1 + e^x), stable.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// sigmoid is σ(x) = 1/(1+e^−x), stable for large |x|.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
