"""Causal verdicts: reruns of the user's command, probes and statistics, surrogate attribution."""
