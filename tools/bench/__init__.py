"""Speed and memory, irrun next to OpenVINO in the same run (tools.bench.bench is the one to quote)."""
