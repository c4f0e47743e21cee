// How generated code cites the papers the rewrites implement: by title and
// section, e.g. `("CUDA-NP: Realizing ...", 3.4)`, never by a file name of
// ours, which a user does not have.
#pragma once
#include <string>

namespace nestor::papers {

/// Li, Wu, Becchi: the load-balancing and recursion templates.
inline const std::string kTemplates =
    "\"Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations\"";
/// Yang, Zhou: CUDA-NP.
inline const std::string kCudaNp = "\"CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications\"";
/// Khorasani, Rowe, Gupta, Bhuyan: collaborative task engagement.
inline const std::string kCte =
    "\"Eliminating Intra-warp Load Imbalance in Irregular Nested Patterns via Collaborative Task Engagement\"";

} // namespace nestor::papers
