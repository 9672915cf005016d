"""Stage 3, running: the plan (steps and their kinds), the one run loop and what may observe it,
programs with their constant caches, in-place buffers, variables (ReadValue/Assign) and sub-graph
bodies."""
