"""Tests of planner/weights: packing .npy and .safetensors weights to NZ and back."""
