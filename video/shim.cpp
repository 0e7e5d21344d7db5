#include "shim.h"

#include <cstring>
#include <exception>
#include <opencv2/core.hpp>
#include <opencv2/video/tracking.hpp>

extern "C" int densify_dis_flow(const unsigned char *prev, const unsigned char *next, int w, int h,
                                densify_dis_params p, float *out, char *err, int errlen) {
	try {
		cv::Mat a(h, w, CV_8UC1, const_cast<unsigned char *>(prev));
		cv::Mat b(h, w, CV_8UC1, const_cast<unsigned char *>(next));
		cv::Mat flow(h, w, CV_32FC2, out); // OpenCV writes into the caller's buffer
		cv::Ptr<cv::DISOpticalFlow> dis = cv::DISOpticalFlow::create(p.preset);
		if (p.finest_scale >= 0) dis->setFinestScale(p.finest_scale);
		if (p.patch_size > 0) dis->setPatchSize(p.patch_size);
		if (p.patch_stride > 0) dis->setPatchStride(p.patch_stride);
		if (p.gd_iterations >= 0) dis->setGradientDescentIterations(p.gd_iterations);
		if (p.vr_iterations >= 0) dis->setVariationalRefinementIterations(p.vr_iterations);
		if (p.vr_alpha >= 0) dis->setVariationalRefinementAlpha(p.vr_alpha);
		if (p.vr_delta >= 0) dis->setVariationalRefinementDelta(p.vr_delta);
		if (p.vr_gamma >= 0) dis->setVariationalRefinementGamma(p.vr_gamma);
		cv::Mat result = flow; // calc may reallocate only if the header does not match
		dis->calc(a, b, result);
		if (result.data != flow.data) {
			result.copyTo(flow);
		}
		return 0;
	} catch (const std::exception &e) {
		if (err && errlen > 0) {
			std::strncpy(err, e.what(), errlen - 1);
			err[errlen - 1] = 0;
		}
		return -1;
	}
}

extern "C" void densify_set_num_threads(int n) { cv::setNumThreads(n); }
extern "C" int densify_get_num_threads(void) { return cv::getNumThreads(); }
