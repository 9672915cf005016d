"""The run's resource limits: the memory budget, the iteration budget and the thread count.
Every stage may consult them; they import only :mod:`irrun.errors`."""
