"""Layer 1, values: dtypes, static shapes, errors, device specs, nested structures."""
