#pragma once
#include <stddef.h>
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
extern "C" {
void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void free(void *);
void exit(int);
void abort(void);
int atoi(const char *);
double atof(const char *);
long strtol(const char *, char **, int);
int rand(void);
void srand(unsigned);
int abs(int);
char *getenv(const char *);
void qsort(void *, size_t, size_t, int (*)(const void *, const void *));
}
