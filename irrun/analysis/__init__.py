"""Stage 2, analysis: the layer graph and its structural checks, shape and type inference with
the op contract, constant f16 sub-graphs in f32, reshaping an IR, and ``irrun check``."""
