"""Layer 2, file formats: TFRecord/CRC32C, the V2 checkpoint bundle and its table,
checkpoint state files, event files, tensor protos. No graph, no session."""
