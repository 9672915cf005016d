"""Files the user hands irrun and files irrun writes: bounded .npy/.npz reading and the one
atomic, link-refusing writer (README "Untrusted files"). Knows nothing of models."""
