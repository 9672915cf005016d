"""The model-zoo suites of the conformance run and the builders of their random-weight models."""
