"""Text embedders (mock, wordllama, a user's command), their choice, batching and on-disk cache."""
