"""Lookup table kernels (placeholder)."""
