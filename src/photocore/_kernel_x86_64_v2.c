/* The kernel's C code again, compiled by setup.py with -march=x86-64-v2 (hardware popcount)
   into photocore/_kernel_x86_64_v2*.so: the baseline kernel loads it in its own place at
   import on CPUs that run it but not x86-64-v3 (see the end of _kernel.pyx). */
#define PHOTOCORE_CODE_PATH "x86-64-v2"
#include "_kernel.c"
