"""msgspec schemas for every on-disk shape agentbisect reads. No logic beyond decoding."""
