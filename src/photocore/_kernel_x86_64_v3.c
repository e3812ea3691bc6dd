/* The kernel's C code again, compiled by setup.py for x86-64-v3 (hardware popcount, BMI)
   into photocore/_kernel_x86_64_v3*.so: the default kernel loads it in its own place at import on CPUs
   that run it (see the end of _kernel.pyx). */
#include "_kernel.c"
