"""The floor everything stands on: errors, honesty flags, JavaScript value semantics, input bytes, safe file writes."""
