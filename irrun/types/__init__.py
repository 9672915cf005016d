"""What every stage shares: element types, partial shapes, and what inference knows of a port
(:class:`~irrun.types.tensor_info.TensorInfo`). Imports nothing else of irrun but :mod:`irrun.errors`."""
