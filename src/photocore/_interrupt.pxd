# Ctrl-C for the loops that run without the GIL (docs/hardening.md, "Every long call stops
# at Ctrl-C"). A long loop plays in bounded chunks (milliseconds of work) and between two
# asks pc_signalled(): in the main thread only, it takes the GIL and runs Python's signal
# handlers (PyErr_CheckSignals), so a Ctrl-C raises KeyboardInterrupt as Python code would
# (and a handler the program installed runs instead, as it would there); in any other
# thread it costs one comparison. Threads that share a long call's work look at a stop flag
# of their own that the main thread sets when it sees the signal. Each module that cimports
# this holds its own copy of these statics: pc_note_main_thread() runs at its import.
from cpython.exc cimport PyErr_Occurred


cdef extern from *:
    """
    #include <pythread.h>
    static CYTHON_UNUSED unsigned long pc_main_thread = 0;
    static CYTHON_UNUSED void pc_note_main_thread(unsigned long ident) { pc_main_thread = ident; }
    /* 1 when a signal's Python handler raised (the exception is set), in the main thread;
       0 otherwise, or in any other thread. Callable without the GIL. */
    static CYTHON_UNUSED int pc_signalled(void) {
        PyGILState_STATE gil;
        int raised;
        if (PyThread_get_thread_ident() != pc_main_thread) return 0;
        gil = PyGILState_Ensure();
        raised = PyErr_CheckSignals() < 0;
        PyGILState_Release(gil);
        return raised;
    }
    """
    void pc_note_main_thread(unsigned long ident)
    bint pc_signalled() nogil


cdef inline int pc_raise_interrupt() except -1:
    """Raises what stopped a loop: the exception a signal's handler set (pc_signalled), or
    KeyboardInterrupt (a stop flag another thread's Ctrl-C set)."""
    if PyErr_Occurred() != NULL:
        return -1
    raise KeyboardInterrupt
