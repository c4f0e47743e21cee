#pragma once
#define assert(e) ((void)((e) || (__builtin_trap(), 0)))
