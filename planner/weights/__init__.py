"""Host weight files (.npy, .safetensors) packed to and from NZ byte order by the planner blocking rules."""
