"""Explanations and pictures of what the cores decided: conflicts, decision remarks, graphs, fractal maps."""
