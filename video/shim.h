// C interface of the small OpenCV shim of package video: DIS optical flow
// (cv::DISOpticalFlow, not wrapped by gocv v0.31) and OpenCV's thread count.
#ifndef DENSIFY_VIDEO_SHIM_H
#define DENSIFY_VIDEO_SHIM_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	int preset;            // cv::DISOpticalFlow::PRESET_* (0 ultrafast, 1 fast, 2 medium)
	int finest_scale;      // < 0: keep the preset's value
	int patch_size;        // < 0: keep
	int patch_stride;      // < 0: keep
	int gd_iterations;     // < 0: keep
	int vr_iterations;     // < 0: keep
	float vr_alpha, vr_delta, vr_gamma; // < 0: keep
} densify_dis_params;

// densify_dis_flow computes the flow from prev to next (both w×h, 8-bit grey,
// row-major, tightly packed) into out (w·h interleaved (u, v) float pairs).
// Returns 0, or -1 with a message in err (size errlen) on an OpenCV exception.
int densify_dis_flow(const unsigned char *prev, const unsigned char *next, int w, int h,
                     densify_dis_params p, float *out, char *err, int errlen);

void densify_set_num_threads(int n);
int densify_get_num_threads(void);

#ifdef __cplusplus
}
#endif
#endif
