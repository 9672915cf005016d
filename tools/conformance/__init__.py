"""The conformance run (python -m tools.conformance.conformance): every suite, one pass table."""
