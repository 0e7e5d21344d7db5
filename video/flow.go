// Package video is the OpenCV adapter of densify (cgo): it reads frames,
// computes dense optical flow (Farnebäck through gocv, DIS through a small C++
// shim, since gocv v0.31 does not wrap cv::DISOpticalFlow) and feeds the pure
// Go point tracker of package sparse (Brox & Malik ECCV 2010; Sundaram, Brox,
// Keutzer ECCV 2010).
package video

/*
#cgo pkg-config: opencv4
#cgo CXXFLAGS: --std=c++11
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"image"
	"image/draw"
	"strings"
	"unsafe"

	"github.com/densify/densify/trajectory"
	"gocv.io/x/gocv"
)

// Method names a dense optical flow algorithm.
type Method string

const (
	// Farneback is Farnebäck's polynomial-expansion flow (SCIA 2003),
	// cv::calcOpticalFlowFarneback.
	Farneback Method = "farneback"
	// DIS is dense inverse search flow (Kroeger et al., ECCV 2016),
	// cv::DISOpticalFlow with variational refinement.
	DIS Method = "dis"
)

// DefaultMethod is the flow used when none is given. Chosen on the five
// DAVIS 2016 dev sequences (first 20 frames, default tracker options):
// DIS medium gives density 0.70, mean track length 10.1, object coverage
// 0.62; tuned Farnebäck 0.60, 9.4, 0.60 (untuned 0.50, 8.8, 0.50), at 2–3×
// the CPU time per frame. DIS has since run at full resolution (DefaultDIS).
const DefaultMethod = DIS

// Methods lists the accepted method names.
var Methods = []Method{Farneback, DIS}

// ParseMethod validates a method name (case-insensitive).
func ParseMethod(s string) (Method, error) {
	m := Method(strings.ToLower(strings.TrimSpace(s)))
	for _, k := range Methods {
		if m == k {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown flow method %q (want farneback or dis)", s)
}

// FarnebackParams are the arguments of cv::calcOpticalFlowFarneback.
type FarnebackParams struct {
	PyrScale   float64 // image scale between pyramid levels (< 1)
	Levels     int     // pyramid levels
	WinSize    int     // averaging window (px)
	Iterations int     // iterations per level
	PolyN      int     // pixel neighbourhood of the polynomial expansion (5 or 7)
	PolySigma  float64 // Gaussian σ of the expansion (1.1 for 5, 1.5 for 7)
	Gaussian   bool    // Gaussian instead of box window
}

// DefaultFarneback are parameters for 854×480 video, tuned on DAVIS by the
// tracks they give: against (levels 5, window 15, 3 iterations, polyN 5,
// σ 1.1) the larger Gaussian window and expansion lose fewer tracks to the
// forward–backward test and cover more of the objects.
var DefaultFarneback = FarnebackParams{PyrScale: 0.5, Levels: 6, WinSize: 31, Iterations: 5, PolyN: 7, PolySigma: 1.5, Gaussian: true}

// DISParams configure cv::DISOpticalFlow; negative fields keep the preset's value.
type DISParams struct {
	Preset                              int // 0 ultrafast, 1 fast, 2 medium
	FinestScale, PatchSize, PatchStride int
	GDIterations, VRIterations          int
	VRAlpha, VRDelta, VRGamma           float64
}

// DefaultDIS is the MEDIUM preset (25 gradient-descent and 5 variational
// iterations per scale) run down to full resolution (finest scale 0, not the
// preset's 1) with 12-px patches every 4 px (not 8 every 3). At finest scale
// 1 the patch search and the variational refinement stop at half resolution
// and the flow is upsampled, which drags a band of background a few pixels
// wide along with a moving object (kite-surf: the water between the kite
// lines, beside the arms, at the board); full resolution sharpens that band,
// and the larger patch keeps the search as robust in weak texture as 8 px at
// half resolution (a dog's motion-blurred fur).
//
// On the ten DAVIS 2016 development sequences (scripts/sparse-eval.sh, cost
// models refitted leave-one-sequence-out on each flow's tracks) it gives a
// higher mean sparse F and training-label IoU than the MEDIUM preset, at
// about 5.5 times the tracking time; a full-resolution variational
// refinement after MEDIUM and OpenCV's DeepFlow without its matching term
// (trajectories slide off fast objects) were worse.
var DefaultDIS = DISParams{Preset: 2, FinestScale: 0, PatchSize: 12, PatchStride: 4,
	GDIterations: -1, VRIterations: -1, VRAlpha: -1, VRDelta: -1, VRGamma: -1}

// SetNumThreads sets OpenCV's internal thread count (cv::setNumThreads;
// 0 disables its parallel loops, negative restores the default).
func SetNumThreads(n int) { C.densify_set_num_threads(C.int(n)) }

// NumThreads returns cv::getNumThreads.
func NumThreads() int { return int(C.densify_get_num_threads()) }

// ToGray converts any image to 8-bit grey with OpenCV's luma weights
// (0.299 R + 0.587 G + 0.114 B, as cv::cvtColor). A YCbCr image (JPEG)
// yields its Y plane directly. The result's bounds start at (0, 0).
func ToGray(img image.Image) *image.Gray {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.Gray:
		if b.Min == (image.Point{}) && m.Stride == b.Dx() {
			return m
		}
	case *image.YCbCr:
		g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
		for y := 0; y < b.Dy(); y++ {
			o := m.YOffset(b.Min.X, b.Min.Y+y)
			copy(g.Pix[y*g.Stride:(y+1)*g.Stride], m.Y[o:o+b.Dx()])
		}
		return g
	}
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	if _, ok := img.(*image.Gray); ok {
		draw.Draw(g, g.Bounds(), img, b.Min, draw.Src)
		return g
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			r, gg, bb, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			l := (299*r + 587*gg + 114*bb + 500) / 1000 // 16-bit
			g.Pix[y*g.Stride+x] = uint8(l >> 8)
		}
	}
	return g
}

// DenseFlow is refine.Flow (the optical flow of the temporal fusion of
// predicted probability maps) on this package's Flow with Method.
type DenseFlow struct{ Method Method }

// Flow returns the flow of Method from frame a to frame b.
func (d DenseFlow) Flow(a, b image.Image) (*trajectory.FlowField, error) { return Flow(a, b, d.Method) }

// Description is the method with its parameters, as Tracker's flows of the
// same method are described in a trajectory.FlowStore: the fields of one
// are the fields of the other.
func (d DenseFlow) Description() string {
	return trajectory.DescribeFlow(string(d.Method), Tracker{}.FlowParams(string(d.Method)))
}

// Flow computes the dense flow from prev to next (same size) with the
// method's default parameters.
func Flow(prev, next image.Image, method Method) (*trajectory.FlowField, error) {
	a, b := ToGray(prev), ToGray(next)
	if a.Bounds().Size() != b.Bounds().Size() {
		return nil, fmt.Errorf("flow: frames differ in size: %v and %v", a.Bounds().Size(), b.Bounds().Size())
	}
	switch method {
	case Farneback:
		return FarnebackFlow(a, b, DefaultFarneback)
	case DIS:
		return DISFlow(a, b, DefaultDIS)
	}
	return nil, fmt.Errorf("unknown flow method %q", method)
}

// sameSize normalises two grey frames (bounds at (0, 0), Stride = width)
// and checks their sizes.
func sameSize(prev, next *image.Gray) (*image.Gray, *image.Gray, int, int, error) {
	prev, next = ToGray(prev), ToGray(next)
	w, h := prev.Bounds().Dx(), prev.Bounds().Dy()
	if next.Bounds().Dx() != w || next.Bounds().Dy() != h {
		return nil, nil, 0, 0, fmt.Errorf("flow: frames differ in size: %dx%d and %dx%d", w, h, next.Bounds().Dx(), next.Bounds().Dy())
	}
	if w < 1 || h < 1 {
		return nil, nil, 0, 0, fmt.Errorf("flow: empty frame")
	}
	return prev, next, w, h, nil
}

// FarnebackFlow runs cv::calcOpticalFlowFarneback on two grey frames of
// equal size.
func FarnebackFlow(prev, next *image.Gray, p FarnebackParams) (*trajectory.FlowField, error) {
	prev, next, w, h, err := sameSize(prev, next)
	if err != nil {
		return nil, err
	}
	a, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC1, prev.Pix[:w*h])
	if err != nil {
		return nil, fmt.Errorf("flow: %w", err)
	}
	defer a.Close()
	b, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC1, next.Pix[:w*h])
	if err != nil {
		return nil, fmt.Errorf("flow: %w", err)
	}
	defer b.Close()
	flow := gocv.NewMat()
	defer flow.Close()
	flags := 0
	if p.Gaussian {
		flags = gocv.OptflowFarnebackGaussian
	}
	gocv.CalcOpticalFlowFarneback(a, b, &flow, p.PyrScale, p.Levels, p.WinSize, p.Iterations, p.PolyN, p.PolySigma, flags)
	if flow.Rows() != h || flow.Cols() != w || flow.Type() != gocv.MatTypeCV32FC2 {
		return nil, fmt.Errorf("flow: Farneback returned a %dx%d matrix of type %v", flow.Cols(), flow.Rows(), flow.Type())
	}
	data, err := flow.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("flow: %w", err)
	}
	return deinterleave(data, w, h), nil
}

// DISFlow runs cv::DISOpticalFlow on two grey frames of equal size.
func DISFlow(prev, next *image.Gray, p DISParams) (*trajectory.FlowField, error) {
	prev, next, w, h, err := sameSize(prev, next)
	if err != nil {
		return nil, err
	}
	out := make([]float32, 2*w*h)
	cp := C.densify_dis_params{
		preset: C.int(p.Preset), finest_scale: C.int(p.FinestScale), patch_size: C.int(p.PatchSize),
		patch_stride: C.int(p.PatchStride), gd_iterations: C.int(p.GDIterations), vr_iterations: C.int(p.VRIterations),
		vr_alpha: C.float(p.VRAlpha), vr_delta: C.float(p.VRDelta), vr_gamma: C.float(p.VRGamma),
	}
	var msg [512]C.char
	rc := C.densify_dis_flow((*C.uchar)(unsafe.Pointer(&prev.Pix[0])), (*C.uchar)(unsafe.Pointer(&next.Pix[0])),
		C.int(w), C.int(h), cp, (*C.float)(unsafe.Pointer(&out[0])), &msg[0], C.int(len(msg)))
	if rc != 0 {
		return nil, fmt.Errorf("flow: DIS: %s", C.GoString(&msg[0]))
	}
	return deinterleave(out, w, h), nil
}

func deinterleave(data []float32, w, h int) *trajectory.FlowField {
	f := trajectory.NewFlowField(w, h)
	for i := 0; i < w*h; i++ {
		f.U[i], f.V[i] = data[2*i], data[2*i+1]
	}
	return f
}
