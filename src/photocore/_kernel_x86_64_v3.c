/* The kernel's C code again, compiled by setup.py with -march=x86-64-v3 (hardware popcount,
   BMI1/2: PDEP, TZCNT, ...) into photocore/_kernel_x86_64_v3*.so: the baseline kernel loads
   it in its own place at import on CPUs that run it (see the end of _kernel.pyx). */
#define PHOTOCORE_CODE_PATH "x86-64-v3"
#include "_kernel.c"
