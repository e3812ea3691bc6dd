/* libFuzzer's entry points for the compiled kernel: an embedded Python imports the target
   module (target.pyx, built with the kernel's coverage and sanitizers by fuzz/kernel/run.py)
   and each input goes straight to its C function. The checks are in target.pyx. */

#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int (*one_input)(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    Py_Initialize();
    PyObject *target = PyImport_ImportModule("photocore_kernel_target");
    PyObject *capsule = target ? PyObject_GetAttrString(target, "ONE_INPUT") : NULL;
    one_input = capsule ? PyCapsule_GetPointer(capsule, "photocore_kernel_target.one_input") : NULL;
    if (one_input == NULL) {
        PyErr_Print();
        fprintf(stderr, "fuzz/kernel: cannot import the target (is PYTHONPATH set? see run.py)\n");
        exit(2);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return one_input(data, size);
}
