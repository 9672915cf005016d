"""Generated documentation: docs/api.md and the sample models of samples/."""
