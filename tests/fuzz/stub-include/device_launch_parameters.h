#pragma once
// The API the fuzz target needs comes from Nestor's built-in CUDA header.
