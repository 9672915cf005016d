"""Stage 3, running: the plan, the run loop, programs with their constant caches, in-place
buffers, variables (ReadValue/Assign) and sub-graph bodies."""
