"""Files the user hands irrun and files irrun writes: bounded .npy/.npz reading, the one
atomic, link-refusing writer (README "Untrusted files"), and a run's input and output files
(``inputs.py``, ``outputs.py``), which use a model only through its public interface (it imports
no model code: the command line and the Dask workers share them)."""
