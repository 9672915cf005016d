"""What every stage shares: element types, partial shapes, and what inference knows of a port
(:class:`~irrun.types.tensor_info.TensorInfo`), a model variable's declaration
(:class:`~irrun.types.variable.Variable`). Imports nothing else of irrun but :mod:`irrun.errors`."""
