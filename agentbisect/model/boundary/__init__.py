"""Boundary analyses over domain events: commit-range index, step graph, step strip, rollups."""
