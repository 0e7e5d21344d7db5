// Package motiongraph turns point trajectories into the motion graph of
// Keuper, Andres & Brox, "Motion trajectory segmentation via minimum cost
// multicuts" (ICCV 2015): trajectory pairs (edges E and optional lifted edges
// F), their motion, distance and colour features, the cost model that maps
// features to calibrated cut probabilities p_e and edge costs
// c_e = log((1−p_e)/p_e) + log((1−β)/β) (Kardoost & Keuper, UAI 2021,
// Eq. 9), the logistic fit of that model on labelled sequences, and the
// segmentation of a trajectory set by a (lifted) multicut of its graph.
package motiongraph
