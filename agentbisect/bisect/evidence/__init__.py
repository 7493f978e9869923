"""Evidence: how strongly each suspect's own text backs the answer, and the ranking built on it."""
