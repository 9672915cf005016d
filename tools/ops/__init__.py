"""Op authoring: the three files a new op starts from, and irrun/ops/index.json."""
