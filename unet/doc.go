// Package unet is densify's densification network: the U-Net of Kardoost, Ho, Ochs,
// Keuper, "Self-supervised sparse to dense motion segmentation" (ACCV 2020), on
// libtorch through gotch (github.com/sugarme/gotch v0.9.1, built by scripts/setup.sh
// against Debian's CPU libtorch 1.13.1, or an official CUDA libtorch via LIBTORCH=).
//
// # API
//
//	cfg, _ := unet.Preset("unet-cpu")          // models/unet-cpu.json; or "unet-paper"
//	dev, _ := unet.ParseDevice("auto")        // "cpu" | "cuda" | "auto"
//	unet.SetThreads(0)                        // libtorch intra-op threads (0 = all cores)
//	unet.ManualSeed(seed)                     // reproducible initialisation
//	m, _ := unet.New(cfg, dev)                // m.VS holds parameters + BN buffers
//	opt, _ := nn.DefaultAdamConfig().Build(m.VS, lr)
//
//	// one training step: everything gotch returns lives in the step's Scope
//	err := unet.Run(func(s *unet.Scope) error {
//		x, err := unet.Tensor(s, rgb, []int64{n, 3, h, w}, m.Device) // RGB in [0,1]
//		...
//		logits, err := m.Forward(s, x, true) // [n, Classes, h, w]; Sobel added inside
//		loss := s.T(logits.BinaryCrossEntropyWithLogits(target, weight, unet.Undefined(), ts.ReductionSum, false))
//		return opt.BackwardStep(loss)
//	})
//
//	// inference
//	err = unet.Run(func(s *unet.Scope) error {
//		return unet.NoGrad(func() error {
//			logits, err := m.Forward(s, x, false) // running BN statistics
//			p, err := unet.Float32s(s.T(logits.Sigmoid(false)))
//			...
//		})
//	})
//
//	m.Save(path, extra)              // atomic; header records cfg (+ your extra JSON)
//	extra, err := m.Load(path)       // error naming both presets if cfg differs
//	m, extra, err := unet.Open(path, dev) // model built from the checkpoint's cfg
//
// # Tensor lifetime
//
// gotch frees tensors from Go finalizers, which can run while libtorch still reads a
// tensor inside a cgo call (a reproduced SIGSEGV). All gotch code in densify keeps
// every tensor in a Scope (Scope.Keep / Scope.T) until the op that uses it has
// returned and frees it explicitly with Scope.Close; Run wraps one step (scope,
// locked OS thread, errors from Scope.T returned as *TorchError). See scope.go and
// the stress test TestScopeSurvivesGCPressure.
//
// # Sobel channel
//
// When Config.Edges is set, Forward computes the Sobel edge magnitude of the input's
// luma in libtorch (see Sobel) and concatenates it as a fourth channel, so training
// and prediction cannot disagree about it. Prediction passes plain RGB; training
// computes each frame's edge map once with the same function (SobelPlanes) and
// passes it as the fourth channel, mirrored with the frame when the frame is
// mirrored (equal to the edges of the mirrored frame up to float rounding: the
// Sobel magnitude is symmetric under a horizontal flip).
//
// # Checkpoints
//
// One self-describing file (format in checkpoint.go): a magic line, a JSON header
// with the Config, the caller's extra JSON and per-tensor name/shape/CRC32, then the
// float32 data. The Adam state is not saved (gotch cannot serialise optimisers): a
// resumed training restarts Adam's moment estimates.
package unet
