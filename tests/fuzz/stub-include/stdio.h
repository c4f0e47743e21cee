#pragma once
#include <stddef.h>
typedef struct FILE FILE;
extern FILE *stdin, *stdout, *stderr;
extern "C" {
int printf(const char *, ...);
int fprintf(FILE *, const char *, ...);
int sprintf(char *, const char *, ...);
int snprintf(char *, size_t, const char *, ...);
int puts(const char *);
FILE *fopen(const char *, const char *);
int fclose(FILE *);
size_t fread(void *, size_t, size_t, FILE *);
size_t fwrite(const void *, size_t, size_t, FILE *);
int fscanf(FILE *, const char *, ...);
}
